# Scenario 6: the guest's own RDMA stack, without the host: siw (built out of tree by build-image)
# and rdma_rxe load, siw0 comes up on eth0, and rdma-core's rping runs against itself over siw0
# with data verification. This proves the guest side of the rping scenarios against the host
# (rping-to-host, rping-from-host) before our provider is involved.
# Variables: RPING_COUNT
rdma_start
me=$(guest_address)
[ -n "$me" ] || fail "eth0 has no IPv4 address"
step "rping -s on $me, then rping -c -C $RPING_COUNT -V -v against it over siw0"
timeout 120 rping -s -a "$me" -p 7174 -v >/tmp/rping-server.log 2>&1 &
server=$!
await_listen 7174
runto /tmp/rping-client.log timeout 120 rping -c -a "$me" -p 7174 -C "$RPING_COUNT" -V -v
rping_pings /tmp/rping-client.log "ping data: " "$RPING_COUNT"
rping_server_done "$server" /tmp/rping-server.log "$RPING_COUNT"
step "scenario passed"
