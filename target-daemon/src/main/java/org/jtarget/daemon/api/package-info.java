/**
 * The management API ({@code /api/v1}, JSON over HTTP/1.1) on the daemon's Unix socket and, with a
 * bearer token, on its TCP management listener. Its own thread and event loop: nothing here runs
 * on an I/O event loop. The top of the daemon: it may use everything, only the launcher
 * ({@link org.jtarget.daemon.JtargetDaemon}) starts it.
 */
package org.jtarget.daemon.api;
