# Scenario 1: discovery, CHAP one-way (IQN_ONEWAY, LUN 0 on a file store) and mutual (IQN_MUTUAL,
# LUN 0 on a memory store), a refused login with a wrong secret, ext4 on one LUN and xfs on the
# other, files with known checksums read back after a remount, fio random writes with crc32c
# verify on both file systems at once, fsck clean, logout.
# Variables: PORT IQN_ONEWAY IQN_MUTUAL CHAP_USER CHAP_SECRET MUTUAL_USER MUTUAL_SECRET FIO_SECONDS
iscsi_start
discover "$PORT" "$IQN_ONEWAY"
discover "$PORT" "$IQN_MUTUAL"

node_new "$IQN_ONEWAY" "$PORT" 1
node_set "$IQN_ONEWAY" "$PORT" node.session.auth.authmethod CHAP
node_set "$IQN_ONEWAY" "$PORT" node.session.auth.username "$CHAP_USER"
node_set "$IQN_ONEWAY" "$PORT" node.session.auth.password "wrong-secret-123"
step "login with a wrong CHAP secret must be refused"
if iscsiadm -m node -T "$IQN_ONEWAY" -p "$HOST:$PORT" --login; then fail "login with a wrong CHAP secret succeeded"; fi
node_set "$IQN_ONEWAY" "$PORT" node.session.auth.password "$CHAP_SECRET"
login "$IQN_ONEWAY" "$PORT"

node_new "$IQN_MUTUAL" "$PORT" 1
node_set "$IQN_MUTUAL" "$PORT" node.session.auth.authmethod CHAP
node_set "$IQN_MUTUAL" "$PORT" node.session.auth.username "$CHAP_USER"
node_set "$IQN_MUTUAL" "$PORT" node.session.auth.password "$CHAP_SECRET"
node_set "$IQN_MUTUAL" "$PORT" node.session.auth.username_in "$MUTUAL_USER"
node_set "$IQN_MUTUAL" "$PORT" node.session.auth.password_in "$MUTUAL_SECRET"
login "$IQN_MUTUAL" "$PORT"

s1=$(session_of "$IQN_ONEWAY" "$PORT") || fail "no session to $IQN_ONEWAY"
s2=$(session_of "$IQN_MUTUAL" "$PORT") || fail "no session to $IQN_MUTUAL"
d1=$(disk_of "$s1" 0) || fail "no disk for $IQN_ONEWAY LUN 0"
d2=$(disk_of "$s2" 0) || fail "no disk for $IQN_MUTUAL LUN 0"
echo "one-way CHAP: session $s1 disk $d1; mutual CHAP: session $s2 disk $d2"
iscsiadm -m session

filesystem_checks "$d1" "$d2"

logout "$IQN_ONEWAY" "$PORT"
logout "$IQN_MUTUAL" "$PORT"
[ -z "$(ls /sys/class/iscsi_session/ 2>/dev/null)" ] || fail "sessions left after logout: $(ls /sys/class/iscsi_session/)"
step "scenario passed"
