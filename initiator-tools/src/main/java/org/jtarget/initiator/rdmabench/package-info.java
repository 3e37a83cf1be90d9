/**
 * {@code jtarget-initiator rdma-bench}: throughput of RDMA WRITE and READ over the emulated RDMA
 * providers (loopback between two threads, tcp between two processes) next to a plain TCP socket
 * stream of the same message sizes between the same two processes, the yardstick the iwarp provider
 * is measured against (issue 6: at least 80% of it at 64 KiB and 1 MiB).
 */
package org.jtarget.initiator.rdmabench;
