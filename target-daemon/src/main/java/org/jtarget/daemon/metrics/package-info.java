/**
 * The daemon's {@code /metrics} endpoint (OpenMetrics / Prometheus text, through the Prometheus
 * Java client's HTTP server): what the core and the buffer pool count, turned into snapshots only
 * when scraped, so that the I/O path updates plain striped counters and never the library.
 */
package org.jtarget.daemon.metrics;
