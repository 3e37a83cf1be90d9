# Scenario 5: what the target advertises (sg_inq, sg_vpd, sg_readcap), persistent reservations
# between two initiator names (two open-iscsi ifaces, two sessions to one LUN), and blkdiscard
# turned into UNMAP on a thin file LUN (GET LBA STATUS says deallocated, the blocks read as zeros;
# the test checks on the host that the backing file shrank).
# Variables: PORT IQN LUN_BYTES
iscsi_start
discover "$PORT" "$IQN"
ini_a=iqn.2026-11.org.jtarget.guest:initiator-a
ini_b=iqn.2026-11.org.jtarget.guest:initiator-b
for i in a b; do
  run iscsiadm -m iface -I "jt$i" -o new >/dev/null
  eval "name=\$ini_$i"
  run iscsiadm -m iface -I "jt$i" -o update -n iface.initiatorname -v "$name" >/dev/null
  node_new "$IQN" "$PORT" 1 "jt$i"
  login "$IQN" "$PORT" "jt$i"
done
da=$(disk_of "$(session_of "$IQN" "$PORT" "$ini_a")" 0) || fail "no disk for $ini_a"
db=$(disk_of "$(session_of "$IQN" "$PORT" "$ini_b")" 0) || fail "no disk for $ini_b"
echo "$ini_a: $da; $ini_b: $db"

step "what the target advertises"
runto /tmp/inq sg_inq "$da"
grep -q "Vendor identification: JTARGET" /tmp/inq || fail "sg_inq: vendor is not JTARGET"
runto /tmp/di sg_vpd -p di "$da"
grep -q "NAA" /tmp/di || fail "sg_vpd: no NAA designator"
runto /tmp/bl sg_vpd -p bl "$da"
grep -q -i "maximum unmap lba count" /tmp/bl || fail "sg_vpd: no unmap limits in the block limits page"
runto /tmp/lbpv sg_vpd -p lbpv "$da"
grep -q "Unmap command supported (LBPU): 1" /tmp/lbpv || fail "sg_vpd: LBPU is not 1"
runto /tmp/cap sg_readcap -l "$da"
grep -q "Number of logical blocks=$((LUN_BYTES / 512))" /tmp/cap || fail "sg_readcap: wrong block count"
grep -q "Logical block length=512 bytes" /tmp/cap || fail "sg_readcap: wrong block length"
grep -q "lbpme=1" /tmp/cap || fail "sg_readcap: LBPME is not 1"

# sg_raw WRITE(10)/READ(10) of LBA 0 through one path; prints the SCSI status line.
head -c 512 /dev/zero >/tmp/zero512
write0() { sg_raw -s 512 -i /tmp/zero512 "$1" 2a 00 00 00 00 00 00 00 01 00 2>&1; }
read0() { sg_raw -r 512 "$1" 28 00 00 00 00 00 00 00 01 00 2>&1; }
conflict() { "$@" | grep -q "Reservation Conflict"; }

step "persistent reservations"
run sg_persist --out --register --param-sark=0xa1 "$da"
run sg_persist --out --register --param-sark=0xb2 "$db"
runto /tmp/keys sg_persist --in --read-keys "$db"
grep -q "^ *0xa1$" /tmp/keys && grep -q "^ *0xb2$" /tmp/keys || fail "READ KEYS does not list both keys"
run sg_persist --out --reserve --param-rk=0xa1 --prout-type=1 "$da"
runto /tmp/res sg_persist --in --read-reservation "$db"
grep -q "Key=0xa1" /tmp/res && grep -q -i "write exclusive" /tmp/res || fail "READ RESERVATION: not held by 0xa1, write exclusive"
conflict write0 "$db" || { write0 "$db"; fail "a write from $ini_b under A's Write Exclusive reservation did not conflict"; }
conflict read0 "$db" && fail "a read from $ini_b conflicted under Write Exclusive"
read0 "$db" >/dev/null || fail "a read from $ini_b failed under Write Exclusive"
write0 "$da" >/dev/null || fail "the holder's write failed"
echo "write exclusive by 0xa1: B's write conflicts, B's read and A's write work"
run sg_persist --out --preempt --param-rk=0xb2 --param-sark=0xa1 --prout-type=3 "$db"
sg_turs "$da" 2>&1 | grep -q -i "registrations preempted" || fail "A got no REGISTRATIONS PREEMPTED unit attention"
runto /tmp/keys sg_persist --in --read-keys "$da"
grep -q "^ *0xa1$" /tmp/keys && fail "A's key survived the preempt"
conflict read0 "$da" || fail "after B preempted with Exclusive Access, A's read did not conflict"
echo "B preempted A (exclusive access): A's key is gone and A's read conflicts"
run sg_persist --out --clear --param-rk=0xb2 "$db"
runto /tmp/keys sg_persist --in --read-keys "$da"
grep -q "^ *0x" /tmp/keys && fail "keys left after CLEAR"
write0 "$da" >/dev/null || fail "A's write failed after CLEAR"

step "blkdiscard is UNMAP"
cat /sys/block/"$(basename "$da")"/queue/discard_max_bytes
[ "$(cat /sys/block/"$(basename "$da")"/queue/discard_max_bytes)" -gt 0 ] || fail "the kernel sees no discard support"
run dd if=/dev/urandom of="$da" bs=1M count=32 oflag=direct status=none
runto /tmp/lba sg_get_lba_status --lba=0 "$da"
grep -q -i "mapped" /tmp/lba || fail "GET LBA STATUS says nothing"
run blkdiscard -o 0 -l 33554432 "$da"
drop_caches
cmp -n 33554432 "$da" /dev/zero || fail "discarded blocks do not read as zeros"
runto /tmp/lba sg_get_lba_status --lba=0 "$da"
grep -q -i "deallocated" /tmp/lba || fail "GET LBA STATUS does not say deallocated after blkdiscard"
echo "JTARGET-GUEST-SIGNAL discarded"
logout "$IQN" "$PORT" jta
logout "$IQN" "$PORT" jtb
step "scenario passed"
