#!/usr/bin/env bash
# The systemd unit (scripts/deploy/abicap.service) is confined, and serve
# works inside its confinement. This machine's PID 1 is not systemd, so the
# unit cannot be started here; what can be checked without it is:
# - systemd's own verdict: `systemd-analyze security --offline` on the unit
#   file scores at most MAX_EXPOSURE (node_exporter's Debian unit: 9.6);
# - serve run with the unit's credentials (a uid with no files, as
#   DynamicUser gives, no_new_privs, the unit's ambient and bounding
#   capabilities, the unit's ExecStart arguments) attaches and answers a
#   scrape with per-cgroup series;
# - every system call of that run (strace, from its execve on) is in the
#   unit's SystemCallFilter as systemd expands it, every socket it makes is
#   of a family in RestrictAddressFamilies, and it opens nothing for writing
#   (ProtectSystem=strict, ProtectKernelTunables, ProtectControlGroups).
# Root (serve loads BPF).
source "$(dirname "$0")/lib.sh"
need systemd-analyze strace setpriv curl
echo "systemd unit"
UNIT=${ABICAP_UNIT:-scripts/deploy/abicap.service}
MAX_EXPOSURE=2.0

# the value of a directive (the lines joined, as systemd joins them)
directive() { sed -n "s/^$1=//p" "$UNIT" | paste -sd' '; }

score=$(systemd-analyze security --offline=yes "$UNIT" 2>&1 |
	sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p')
if [ -z "$score" ]; then
	fail "systemd-analyze security gave no score: $(systemd-analyze security --offline=yes "$UNIT" 2>&1 | tail -2)"
elif awk -v s="$score" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(s <= m) }'; then
	ok "systemd-analyze security: exposure $score (at most $MAX_EXPOSURE)"
else
	fail "systemd-analyze security: exposure $score, above $MAX_EXPOSURE"
fi
for d in DynamicUser NoNewPrivileges MemoryMax TasksMax ProtectKernelTunables \
	ProtectControlGroups RestrictAddressFamilies SystemCallFilter; do
	[ -n "$(directive $d)" ] && ok "the unit sets $d" || fail "the unit does not set $d"
done

# the unit's credentials for setpriv: CAP_BPF CAP_PERFMON -> +bpf,+perfmon
caps() { directive "$1" | tr ' ' '\n' | grep . | sed 's/^CAP_/+/' | tr 'A-Z' 'a-z' | paste -sd,; }
amb=$(caps AmbientCapabilities)
bound=$(caps CapabilityBoundingSet)
[ -n "$amb" ] && [ -n "$bound" ] || { fail "the unit names no capabilities"; done_; }
# ExecStart's arguments, the port moved off 9464
read -r -a args <<<"$(directive ExecStart)"
port=$((20000 + $$ % 20000))
args=("${args[@]:1}")
args=("${args[@]//127.0.0.1:9464/127.0.0.1:$port}")
[ "${args[0]}" = serve ] || { fail "ExecStart does not run serve: ${args[*]}"; done_; }

tmp=$(mktemp -d)
chmod 0755 "$tmp"
cleanup() {
	[ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# a uid and gid nothing on this machine owns (DynamicUser's are 61184-65519)
dyn=61999
strace -f -qq -o "$tmp/trace" \
	setpriv --reuid=$dyn --regid=$dyn --clear-groups --no-new-privs \
	--inh-caps="-all,$amb" --ambient-caps="$amb" --bounding-set="-all,$bound" \
	"$BIN" "${args[@]}" -d 60 >"$tmp/log" 2>&1 &
pid=$!
if scrape_until $port "$tmp/m" '^abicap_context_switches_total{cgroup="/' $pid; then
	ok "serve as uid $dyn with only $amb answers /metrics with per-cgroup series"
else
	fail "serve with the unit's credentials gave no per-cgroup /metrics: $(tail -3 "$tmp/log")"
fi
# a cgroup made once serve runs (its capabilities dropped) is named
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
cg=/abicap-unit-$$
mkdir "$cgroot$cg"
( echo 0 >"$cgroot$cg/cgroup.procs" && exec sh -c 'while :; do sleep 0.05; done' ) &
napper=$!
scrape_until $port "$tmp/m" "^abicap_context_switches_total{cgroup=\"$cg\"" $pid
named=$?
kill $napper
wait $napper 2>/dev/null
for _ in $(seq 50); do rmdir "$cgroot$cg" 2>/dev/null && break; sleep 0.1; done
[ $named -eq 0 ] &&
	ok "a cgroup made while it serves is named ($cg)" ||
	fail "a cgroup made while serve ran was not named in 60 s: $(grep -c 'cgroup="cgroup#' "$tmp/m") unnamed series"
# strace's child is setpriv, which became abicap
kill -INT "$(pgrep -P $pid)" 2>/dev/null
wait $pid
rc=$?
pid=
[ $rc -eq 0 ] && ok "serve ends cleanly on SIGINT" || fail "serve exited $rc: $(tail -3 "$tmp/log")"

# abicap's own system calls: from the line of its execve on (the first
# lines are setpriv's)
sed -n "\|execve(\"$BIN\"|,\$p" "$tmp/trace" >"$tmp/own"
[ -s "$tmp/own" ] || { fail "strace saw no execve of $BIN"; done_; }
calls=$(sed -nE 's/^[0-9]+ +([a-z_0-9]+)\(.*/\1/p' "$tmp/own" | sort -u)

# a syscall-filter set as systemd expands it (groups inside groups)
expand() {
	local w
	for w in "$@"; do
		case $w in
		@*) expand $(systemd-analyze syscall-filter "$w" |
			sed -nE '1d; s/^ +([@a-z_0-9-]+)$/\1/p') ;;
		*) echo "$w" ;;
		esac
	done
}
allow= deny=
while read -r line; do
	case $line in
	'~'*) deny="$deny ${line#\~}" ;;
	*) allow="$allow $line" ;;
	esac
done < <(sed -n 's/^SystemCallFilter=//p' "$UNIT")
allowed=$(comm -23 <(expand $allow | sort -u) <(expand $deny | sort -u))
bad=$(comm -23 <(echo "$calls") <(echo "$allowed"))
[ -z "$bad" ] && ok "all $(echo "$calls" | wc -l) system calls serve made are in the unit's SystemCallFilter" ||
	fail "system calls the unit's SystemCallFilter refuses: $(echo $bad)"

families=$(sed -nE 's/.* socket\((AF_[A-Z0-9]+),.*/\1/p' "$tmp/own" | sort -u)
bad=$(comm -23 <(echo "$families") <(directive RestrictAddressFamilies | tr ' ' '\n' | sort -u))
[ -n "$families" ] && [ -z "$bad" ] &&
	ok "its sockets ($(echo $families)) are of families RestrictAddressFamilies allows" ||
	fail "socket families outside RestrictAddressFamilies: $(echo $bad)"

writes=$(grep -E 'open(at)?\(.*O_(WRONLY|RDWR|CREAT)' "$tmp/own" | grep -v ' = -1 ')
[ -z "$writes" ] && ok "it opens no file for writing (the unit's file system is read-only)" ||
	fail "files opened for writing: $(echo "$writes" | head -3)"
done_
