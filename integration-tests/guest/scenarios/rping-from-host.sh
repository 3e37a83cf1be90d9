# Scenario 8 (waits for the iwarp provider): rdma-core's rping -s in the guest over siw0, reached by
# our `jtarget-initiator rping -c` on the host through a QEMU port forward (host 127.0.0.1:<port> to
# the guest's RPING_PORT). The guest prints "JTARGET-GUEST-SIGNAL rping-server-ready" once rping
# listens; the test then runs the client, which verifies every ping, and rping -s must end cleanly
# after the client's RPING_COUNT pings.
# Variables: RPING_PORT RPING_COUNT
rdma_start
me=$(guest_address)
step "rping -s -a $me -p $RPING_PORT -v, for the host's jtarget-initiator rping -c"
timeout 240 rping -s -a "$me" -p "$RPING_PORT" -v >/tmp/rping-server.log 2>&1 &
server=$!
await_listen "$RPING_PORT"
echo "JTARGET-GUEST-SIGNAL rping-server-ready"
rping_server_done "$server" /tmp/rping-server.log "$RPING_COUNT"
step "scenario passed"
