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

step "mkfs.ext4 $d1, mkfs.xfs $d2"
run mkfs.ext4 -q -F "$d1"
run mkfs.xfs -q -f "$d2"
mkdir -p /mnt/ext4 /mnt/xfs
run mount -t ext4 "$d1" /mnt/ext4
run mount -t xfs "$d2" /mnt/xfs

step "files with known checksums"
checksum_files /mnt/ext4 8
checksum_files /mnt/xfs 8
run umount /mnt/ext4
run umount /mnt/xfs
drop_caches
run mount -t ext4 "$d1" /mnt/ext4
run mount -t xfs "$d2" /mnt/xfs
check_files /mnt/ext4
check_files /mnt/xfs

step "fio on both file systems"
fio_verify fs --size=48M --runtime="$FIO_SECONDS" --iodepth=8 \
  --name=ext4 --filename=/mnt/ext4/fio.data --name=xfs --filename=/mnt/xfs/fio.data
check_files /mnt/ext4
check_files /mnt/xfs

step "unmount, fsck"
run umount /mnt/ext4
run umount /mnt/xfs
run e2fsck -fn "$d1"
run xfs_repair -n "$d2"

logout "$IQN_ONEWAY" "$PORT"
logout "$IQN_MUTUAL" "$PORT"
[ -z "$(ls /sys/class/iscsi_session/ 2>/dev/null)" ] || fail "sessions left after logout: $(ls /sys/class/iscsi_session/)"
step "scenario passed"
