/**
 * {@code jtarget-initiator bench}: a load generator in the manner of fio, speaking iSCSI through
 * the raw client (over TCP or iSER) or SRP through the SRP channel. Several sessions (one
 * connection each) keep a queue depth of READ (16)/WRITE (16) commands outstanding each, within
 * the target's CmdSN window (RFC 7143 4.2.2.1) or SRP request limit (SRP r16a 5.5.2), sequential
 * or random over a region, reads and writes mixed as asked
 * ({@link org.jtarget.initiator.bench.BenchArguments}). Every command's latency goes into a
 * fixed-size log-linear {@link org.jtarget.initiator.bench.LatencyHistogram} per session and
 * direction; the report gives IOPS, bandwidth and min/avg/p50/p99/p99.9/max latency per direction.
 *
 * <p>The load loop allocates nothing of its own per command (preallocated command PDUs, write
 * payloads and histograms); the raw client still copies each PDU into a fresh array to send it
 * and reads each received PDU into fresh arrays, which bounds how fast one session can go. Over
 * SRP neither the loop nor the channel allocates per command (the SRP_CMD is written into
 * registered memory, the SRP_RSP read in place); what the emulated provider does is its own.
 */
package org.jtarget.initiator.bench;
