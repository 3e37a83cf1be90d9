# Scenario 7 (waits for the iwarp provider): the guest's rping client over siw0 against our
# `jtarget-initiator rping -s` on the host (10.0.2.2 through QEMU's user-mode network), with data
# verification on both sides (the host's server runs with -V).
# Variables: RPING_PORT RPING_COUNT
rdma_start
step "rping -c -a $HOST -p $RPING_PORT -C $RPING_COUNT -v -V (the host's jtarget-initiator rping -s)"
runto /tmp/rping-client.log timeout 240 rping -c -a "$HOST" -p "$RPING_PORT" -C "$RPING_COUNT" -v -V
rping_pings /tmp/rping-client.log "ping data: " "$RPING_COUNT"
step "scenario passed"
