/**
 * {@code jtarget-initiator rping -s|-c}: a client and a server that speak rdma-core's rping protocol
 * (librdmacm/examples/rping.c) over the daemon's emulated RDMA provider, so that the transport can be
 * checked against Linux's own rping (siw, rxe or an RNIC) before any SCSI runs over it.
 */
package org.jtarget.initiator.rping;
