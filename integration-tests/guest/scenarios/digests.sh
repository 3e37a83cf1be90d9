# Scenario 2: HeaderDigest and DataDigest CRC32C (the node record offers only CRC32C, so the login
# fails unless the target accepts them), checked in the connection's negotiated values, then fio
# random writes with crc32c verify on the raw disk and a 32 MiB checksum round trip.
# Variables: PORT IQN FIO_SECONDS
iscsi_start
discover "$PORT" "$IQN"
node_new "$IQN" "$PORT" 1
node_set "$IQN" "$PORT" node.conn[0].iscsi.HeaderDigest CRC32C
node_set "$IQN" "$PORT" node.conn[0].iscsi.DataDigest CRC32C
login "$IQN" "$PORT"
s=$(session_of "$IQN" "$PORT") || fail "no session to $IQN"
d=$(disk_of "$s" 0) || fail "no disk for $IQN LUN 0"
digests=$(digest_of "$s")
echo "negotiated HeaderDigest DataDigest: $digests"
[ "$digests" = "CRC32C CRC32C" ] || fail "digests negotiated as '$digests', not CRC32C CRC32C"

step "32 MiB checksum round trip on $d"
head -c 33554432 /dev/urandom >/tmp/data
run dd if=/tmp/data of="$d" bs=256k oflag=direct status=none
drop_caches
[ "$(sha256sum </tmp/data)" = "$(head -c 33554432 "$d" | sha256sum)" ] || fail "data read back differs"
echo "32 MiB read back with the same SHA-256"

fio_verify digests --name=raw --filename="$d" --size=96M --runtime="$FIO_SECONDS"
[ "$(digest_of "$s")" = "CRC32C CRC32C" ] || fail "digests changed"
dmesg | grep -i "digest" && fail "the kernel logged a digest error"
logout "$IQN" "$PORT"
step "scenario passed"
