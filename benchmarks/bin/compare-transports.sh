# Sourced by iser-vs-tcp, srp-vs-iser, srp-vs-tcp and ha-vs-single: compare_transports A URL_A B URL_B runs
# `jtarget-initiator bench` over both URLs (the portals of one daemon, LUN 0 of $iqn) for every
# workload of $workloads (NAME:RW:BS:QD separated by spaces), each pair back to back, the order
# alternating per round, $rounds rounds of $seconds s after a ramp of $ramp s; prints each run, per
# workload the B/A ratio of every round and their median, and the load average before and after.
# Needs $root (the checkout) and python3.

# bench_mibs URL RW BS QD: the run's MiB/s (reads and writes together for a mixed workload)
bench_mibs() {
  JTARGET_JAVA_OPTS=-Dio.netty.leakDetection.level=disabled "$root/initiator-tools/bin/jtarget-initiator" \
    bench --url "$1/0" --rw "$2" --bs "$3" --qd "$4" --seconds "$seconds" --ramp "$ramp" \
    | sed -n 's/.*BW=\([0-9.]*\)MiB.*/\1/p' | awk '{ sum += $1 } END { printf "%.2f", sum }'
}

compare_transports() {
  local a=$1 a_url=$2 b=$3 b_url=$4 round w name rw bs qd x y r
  declare -A ratios
  echo "load: $(uptime)"
  for round in $(seq "$rounds"); do
    for w in $workloads; do
      IFS=: read -r name rw bs qd <<< "$w"
      if [ $((round % 2)) -eq 1 ]; then
        x=$(bench_mibs "$a_url" "$rw" "$bs" "$qd"); y=$(bench_mibs "$b_url" "$rw" "$bs" "$qd")
      else
        y=$(bench_mibs "$b_url" "$rw" "$bs" "$qd"); x=$(bench_mibs "$a_url" "$rw" "$bs" "$qd")
      fi
      r=$(python3 -c "print(f'{$y / $x:.2f}')")
      ratios[$name]="${ratios[$name]:-} $r"
      echo "round $round $name $a=${x}MiB/s $b=${y}MiB/s ratio=$r"
    done
  done
  echo "load: $(uptime)"
  for w in $workloads; do
    name=${w%%:*}
    echo "$name $b/$a:${ratios[$name]} median=$(python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}')" ${ratios[$name]})"
  done
}
