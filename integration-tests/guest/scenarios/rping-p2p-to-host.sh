# Scenario 10 (RFC 6581 peer-to-peer mode against Linux, the guest asking): the guest's rping client
# over a siw built with peer_to_peer = true (build-image's SIW_MODULE: siw-p2p offers zero-length
# RDMA WRITE and READ as RTR, siw-p2p-read only the READ), loaded in place of siw, against our
# `jtarget-initiator rping -s` on the host, which picks the RTR (WRITE when offered) and waits for
# it as the first FPDU; data verified on both sides. The host checks that its server saw the RTR.
# Variables: RPING_PORT RPING_COUNT SIW_MODULE
siw_p2p_start "$SIW_MODULE"
step "rping -c -a $HOST -p $RPING_PORT -C $RPING_COUNT -v -V over $SIW_MODULE (the host's jtarget-initiator rping -s)"
runto /tmp/rping-client.log timeout 240 rping -c -a "$HOST" -p "$RPING_PORT" -C "$RPING_COUNT" -v -V
rping_pings /tmp/rping-client.log "ping data: " "$RPING_COUNT"
step "scenario passed"
