# bash completion for abicap(1). Commands and options are read from
# `abicap --help` and `abicap COMMAND --help`, so they follow the binary.
_abicap_events="sched_switch sched_wakeup sched_wakeup_new sched_waking cpu_idle cpu_frequency"

_abicap_formats()
{
	case $1 in
	trace|report|diff|script|wakeups) echo "text json" ;;
	check) echo "text json junit" ;;
	esac
}

_abicap()
{
	local cur prev cmd i words_before
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()

	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} == -* ]] && continue
		cmd=${COMP_WORDS[i]}
		break
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(abicap --help 2>/dev/null |
				awk '/^Commands:/ { on = 1; next }
				     on && /^  [a-z]/ { print $1 }
				     on && /^$/ { exit }')" -- "$cur"))
		fi
		return
	fi

	# a program to record: complete it as a command line of its own
	if [[ $cmd == record ]]; then
		for ((i = 2; i < COMP_CWORD; i++)); do
			if [[ ${COMP_WORDS[i]} == -- ]]; then
				if ((COMP_CWORD == i + 1)); then
					COMPREPLY=($(compgen -c -- "$cur" | sort -u))
				else
					COMPREPLY=($(compgen -f -- "$cur"))
				fi
				return
			fi
		done
	fi

	case $prev in
	-f|--format)
		COMPREPLY=($(compgen -W "$(_abicap_formats "$cmd")" -- "$cur"))
		return ;;
	-e|--events)
		local done_= last=$cur
		if [[ $cur == *,* ]]; then
			done_=${cur%,*},
			last=${cur##*,}
		fi
		COMPREPLY=($(compgen -P "$done_" -W "$_abicap_events" -- "$last"))
		[[ ${#COMPREPLY[@]} -gt 0 ]] && compopt -o nospace 2>/dev/null
		return ;;
	--attach)
		COMPREPLY=($(compgen -W "auto tp_btf raw_tp" -- "$cur"))
		return ;;
	--transport)
		COMPREPLY=($(compgen -W "auto ringbuf perfbuf" -- "$cur"))
		return ;;
	--drain-threads)
		COMPREPLY=($(compgen -W "auto 0" -- "$cur"))
		return ;;
	--by)
		COMPREPLY=($(compgen -W "task cgroup container" -- "$cur"))
		return ;;
	-o|--output|-P|--perfetto|-c|--contract|--btf|--object)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	-b)
		# --btf for check and contract, --buffer-size (a number) elsewhere
		if [[ $cmd == check || $cmd == contract ]]; then
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return ;;
	--cgroup)
		COMPREPLY=($(cd /sys/fs/cgroup 2>/dev/null &&
			compgen -d -- "${cur#/}" | sed 's|^|/|'))
		return ;;
	-p|--pid|--tid|-d|--duration|-C|--cpu|--buffer-size|-n|--top|\
	--comm|-l|--listen|--max-cgroups|--max-lanes|--since|--until|-w|--width|--cell|\
	--slowest|--container)
		return ;;
	esac

	if [[ $cmd == contract && $COMP_CWORD -eq 2 ]]; then
		COMPREPLY=($(compgen -W "show snapshot from-object" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		# the option lines of the help: "  -x, --long ARG  text"
		COMPREPLY=($(compgen -W "$(abicap "$cmd" --help 2>/dev/null |
			sed -nE 's/^ +(-[A-Za-z0-9]), (--[a-z0-9-]+).*/\1 \2/p
				 s/^ +(--[a-z0-9-]+).*/\1/p')" -- "$cur"))
		return
	fi
	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _abicap abicap
