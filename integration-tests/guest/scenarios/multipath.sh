# Scenario 3: dm-multipath over the two portals of one target, which are two ALUA target port
# groups (PORT: group 1 active/optimized, PORT_B: group 2 active/non-optimized). multipathd groups
# the paths by ALUA priority (alua prio: 50 optimized, 10 non-optimized), so I/O uses the PORT
# path; while fio writes and verifies through the map, iptables in the guest drops that path's
# traffic: the iSCSI session fails within its replacement timeout (5 s), dm-multipath retries the
# I/O on the PORT_B path and fio ends with no error. Then the path is let through again and must
# come back.
# Variables: PORT PORT_B IQN
multipath_login "$IQN" "$PORT" "$PORT_B" 30
retry 30 sh -c "multipath -ll $map | grep -q 'prio=10'" || fail "the map has no non-optimized path group"
multipath -ll "$map"
multipath -ll "$map" | grep -q "prio=50 status=active" || fail "no active path group with ALUA prio 50 (optimized)"
multipath -ll "$map" | grep -q "prio=10" || fail "no path group with ALUA prio 10 (non-optimized)"
dev=/dev/mapper/$map
[ -b "$dev" ] || fail "$dev missing"

step "fio through $dev, then path A (port $PORT) is cut"
fio_verify multipath --name=mpath --filename="$dev" --size=128M &
fio_pid=$!
sleep 4
kill -0 $fio_pid 2>/dev/null || fail "fio ended before the path was cut"
run iptables -A OUTPUT -p tcp -d "$HOST" --dport "$PORT" -j DROP
run iptables -A INPUT -p tcp -s "$HOST" --sport "$PORT" -j DROP
echo "path A cut at $(cut -d' ' -f1 /proc/uptime) s"
wait $fio_pid || exit 1
multipath -ll "$map"
multipathd show paths
# multipathd's own path table follows the kernel's "Failing path" with a lag (a CI run once read
# dm state "active" beside checker state "faulty" here): wait up to 15 s for it to say failed
waited=0
until multipathd show paths format "%d %t %T" | grep -q "^$(basename "$da") *failed"; do
  waited=$((waited + 1))
  [ $waited -le 15 ] || fail "path A ($da) is not failed 15 s after the cut's I/O ended"
  sleep 1
done
multipathd show paths format "%d %t %T" | grep -q "^$(basename "$db") *active *ready" \
  || fail "path B ($db) is not active"

step "path A let through again"
run iptables -F INPUT
run iptables -F OUTPUT
retry 40 sh -c "multipathd show paths format '%d %t %T' | grep -q '^$(basename "$da") *active *ready'" \
  || { multipathd show paths; fail "path A did not come back within 40 s"; }
multipath -ll "$map"
run multipath -f "$map"
logout "$IQN" "$PORT"
logout "$IQN" "$PORT_B"
step "scenario passed"
