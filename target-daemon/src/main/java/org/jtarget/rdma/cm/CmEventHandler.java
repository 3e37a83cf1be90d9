package org.jtarget.rdma.cm;

/**
 * Receives the events of a listener or an outgoing connection, one at a time, on the connection
 * manager's event thread (the librdmacm event channel); it may call back into the manager.
 */
@FunctionalInterface
public interface CmEventHandler {
    void onEvent(CmEvent event);
}
