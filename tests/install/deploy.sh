#!/usr/bin/env bash
# The Prometheus rules and the Grafana dashboard (scripts/deploy/): promtool
# checks the rules and runs their unit tests; every metric and label an
# expression uses is one that a live build/abicap-static serve exports
# (which also shows the static binary serves). Root (serve loads BPF).
source "$(dirname "$0")/lib.sh"
need promtool jq curl
echo "rules and dashboard"
STATIC=${ABICAP_STATIC:-$TOP/build/abicap-static}
dash=scripts/deploy/grafana-dashboard.json
rules=scripts/deploy/prometheus-rules.yml

out=$(promtool check rules "$rules" 2>&1) && ok "promtool check rules" || fail "promtool check rules: $out"
out=$(cd scripts/deploy && promtool test rules prometheus-rules.test.yml 2>&1) &&
	ok "promtool test rules (the alerts on synthetic series)" || fail "promtool test rules: $out"

jq -e . "$dash" >/dev/null && ok "dashboard is JSON" || fail "dashboard is not JSON"
n=$(jq '[.panels[].id] | length' "$dash"); u=$(jq '[.panels[].id] | unique | length' "$dash")
[ "$n" -gt 0 ] && [ "$n" = "$u" ] && ok "$n panels, ids unique" || fail "panel ids: $n panels, $u unique"
bad=$(jq -r '.panels[] | select((.gridPos.w // 0) < 1 or (.gridPos.h // 0) < 1 or
	(.gridPos.x + .gridPos.w) > 24 or (.targets | length) == 0 or
	([.targets[].expr | select(. == null or . == "")] | length) > 0) | .title' "$dash")
[ -z "$bad" ] && ok "every panel has a place and a query" || fail "panels without place or query: $bad"
vars=$(jq -r '.templating.list[].name' "$dash" | sort)
used=$(jq -r '.. | strings' "$dash" | grep -oE '\$\{?[a-z_]+' | tr -d '${' | grep -v '^__' | sort -u)
missing=$(comm -13 <(echo "$vars") <(echo "$used") | grep .)
[ -z "$missing" ] && ok "every \$variable is defined" || fail "undefined variables: $missing"
for t in heatmap; do
	jq -e --arg t "$t" '[.panels[] | select(.type == $t)] | length > 0' "$dash" >/dev/null &&
		ok "a $t panel" || fail "no $t panel"
done

# a live scrape of the static binary, with a task in a Kubernetes pod's
# container cgroup (the pod, container and qos labels come from its path)
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$cgroot" ] || { fail "no cgroup v2 mount"; done_; }
# Pods count only where the kubelet puts them (kubepods.slice at the root):
# the test makes that chain, and removes what it made
pod=kubepods-burstable-pod0d9e7f3a_1b2c_4d5e_8f90_a1b2c3d4e5f6.slice
sub=/kubepods.slice/kubepods-burstable.slice/$pod
ct=$sub/cri-containerd-$(printf '5%.0s' $(seq 64)).scope
made=
for d in /kubepods.slice /kubepods.slice/kubepods-burstable.slice $sub $ct; do
	[ -d "$cgroot$d" ] && continue
	mkdir "$cgroot$d" || { fail "mkdir $cgroot$d"; done_; }
	made="$d $made"
done
( echo 0 >"$cgroot$ct/cgroup.procs" && exec sh -c 'while :; do sleep 0.05; done' ) &
napper=$!
port=$((20000 + $$ % 20000))
log=$(mktemp)
"$STATIC" serve --listen "127.0.0.1:$port" --cgroup "$sub" -d 120 >"$log" 2>&1 &
pid=$!
cleanup() {
	kill $pid $napper 2>/dev/null
	wait $pid $napper 2>/dev/null
	rm -f "$log" "$log.m"
	for d in $made; do
		for _ in $(seq 50); do rmdir "$cgroot$d" 2>/dev/null && break; [ -d "$cgroot$d" ] || break; sleep 0.1; done
	done
}
trap cleanup EXIT
# until the napper's switches are in a scrape (serve answers before that)
if ! scrape_until $port "$log.m" '^abicap_context_switches_total{.*pod=' $pid; then
	fail "abicap-static serve gave no /metrics with the pod's cgroup in 60 s: $(tail -3 "$log")"
	done_
fi
ok "abicap-static serve answers /metrics ($(grep -c '^# TYPE' "$log.m") families)"
# family -> its labels, from the samples
fam=$(awk '/^# TYPE/ { print $3, $4 }' "$log.m")
labels=$(sed -nE 's/^([a-z_]+)\{(.*)\} .*/\1 \2/p' "$log.m" |
	awk '{ n = $1; sub(/_(bucket|sum|count)$/, "", n); s = $0; sub(/^[^ ]+ /, "", s)
		while (match(s, /[a-z_]+="/)) { print n, substr(s, RSTART, RLENGTH - 2); s = substr(s, RSTART + RLENGTH) } }' | sort -u)
exprs=$( { jq -r '.panels[].targets[].expr, (.templating.list[] | .definition // empty)' "$dash"
	sed -n '/expr:/,/for:\|labels:/p' "$rules"; } )
for m in $(grep -oE '\babicap_[a-z_]+' <<<"$exprs" | sort -u); do
	base=$m
	grep -q "^${m%_bucket} histogram$\|^${m%_sum} histogram$\|^${m%_count} histogram$" <<<"$fam" &&
		base=$(sed -E 's/_(bucket|sum|count)$//' <<<"$m")
	grep -q "^$base " <<<"$fam" && ok "serve exports $m" || fail "$m: serve exports no such metric"
done
for l in $(grep -oE '\b(by|without) *\([^)]*\)|\$labels\.[a-z_]+|[a-z_]+ *(=~|!=|=)"' <<<"$exprs" |
		sed -E 's/^(by|without) *\(//; s/\)$//; s/\$labels\.//; s/ *(=~|!=|=)"$//' | tr ',' '\n' | tr -d ' ' | sort -u); do
	case $l in instance|job|le) continue ;; esac
	grep -q " $l$" <<<"$labels" && ok "serve exports label $l" || fail "label $l: no metric of serve has it"
done
done_
