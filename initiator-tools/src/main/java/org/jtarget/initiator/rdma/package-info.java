/**
 * A client of the daemon's RDMA store endpoints over the emulated tcp provider:
 * {@link org.jtarget.initiator.rdma.StoreEndpointClient} connects to an endpoint by name and RDMA
 * READs and WRITEs its blocks one-sided, several requests in flight, through staging memory
 * registered once ({@link org.jtarget.initiator.rdma.PinnableMemory}, pinned as the daemon pins its
 * own). Failures are {@link org.jtarget.initiator.rdma.StoreEndpointException}s of three kinds,
 * which {@code jtarget-initiator} maps to its exit codes. Also the pieces shared with
 * {@code rdma-bench}: {@link org.jtarget.initiator.rdma.CompletionWaiter} and
 * {@link org.jtarget.initiator.rdma.PinnableMemory}.
 */
package org.jtarget.initiator.rdma;
