# Scenario 10 (RFC 6581 peer-to-peer mode against Linux, the guest asking): the guest's rping client
# over a siw built with peer_to_peer = true (build-image's siw-p2p.ko, loaded in place of siw), so
# its MPA request asks for peer-to-peer mode offering zero-length RDMA WRITE and READ, against our
# `jtarget-initiator rping -s` on the host, which picks the WRITE and waits for it as the first FPDU;
# data verified on both sides. The host checks that its server saw the RTR.
# Variables: RPING_PORT RPING_COUNT
siw_p2p_start
step "rping -c -a $HOST -p $RPING_PORT -C $RPING_COUNT -v -V over siw-p2p (the host's jtarget-initiator rping -s)"
runto /tmp/rping-client.log timeout 240 rping -c -a "$HOST" -p "$RPING_PORT" -C "$RPING_COUNT" -v -V
rping_pings /tmp/rping-client.log "ping data: " "$RPING_COUNT"
step "scenario passed"
