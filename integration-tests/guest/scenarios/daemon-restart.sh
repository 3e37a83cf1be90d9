# Scenario 4: the daemon is killed and restarted (same port, same file store) while fio writes and
# verifies. The guest prints "JTARGET-GUEST-SIGNAL kill-daemon" once fio is under way; the test
# then SIGKILLs the daemon and starts it again. The initiator must notice the lost connection,
# log in again within its replacement timeout (60 s here) and fio must finish without an error or
# a verify mismatch.
# Variables: PORT IQN
iscsi_start
discover "$PORT" "$IQN"
node_new "$IQN" "$PORT" 1
node_set "$IQN" "$PORT" node.session.timeo.replacement_timeout 60
node_set "$IQN" "$PORT" node.conn[0].timeo.noop_out_interval 2
node_set "$IQN" "$PORT" node.conn[0].timeo.noop_out_timeout 4
login "$IQN" "$PORT"
s=$(session_of "$IQN" "$PORT") || fail "no session to $IQN"
d=$(disk_of "$s" 0) || fail "no disk for $IQN LUN 0"
sectors=$(cat /sys/block/"$(basename "$d")"/size)

step "fio in the background, then the daemon is killed and restarted"
fio_verify restart --name=raw --filename="$d" --size=128M &
fio_pid=$!
sleep 4
kill -0 $fio_pid 2>/dev/null || fail "fio ended before the daemon was killed (too fast to test a restart)"
echo "JTARGET-GUEST-SIGNAL kill-daemon"
wait $fio_pid || exit 1

step "after the restart"
dmesg | grep -E "connection$s:0|session$s" | tail -10
dmesg | grep -q "connection$s:0: detected conn error" || fail "the initiator never saw the connection drop"
state=$(cat /sys/class/iscsi_session/session"$s"/state)
echo "session $s state: $state"
[ "$state" = "LOGGED_IN" ] || fail "session state $state after the restart"
[ "$(cat /sys/block/"$(basename "$d")"/size)" = "$sectors" ] || fail "the disk changed size"
logout "$IQN" "$PORT"
step "scenario passed"
