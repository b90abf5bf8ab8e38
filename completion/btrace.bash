# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for btrace.  Commands and options are read from btrace's
# own --help, so they never fall behind the program.  Uses bash-completion's
# helpers when they are there, plain compgen otherwise.

_btrace_commands()
{
	"$1" --help 2>/dev/null | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'
}

_btrace_options()
{
	"$1" "$2" --help 2>/dev/null |
		awk '/^Options:/ { on = 1; next } on && !NF { exit } on { sub(/^ +/, ""); sub(/  .*/, ""); print }' |
		grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z-]*' | tr -d ' ,'
}

_btrace_files()
{
	if declare -F _filedir >/dev/null; then
		_filedir
	else
		COMPREPLY=($(compgen -f -- "$1"))
	fi
}

# The words from @1 on are a command line of their own (record's CMD).
_btrace_command_at()
{
	if declare -F _command_offset >/dev/null; then
		_command_offset "$1"
	elif (($1 == COMP_CWORD)); then
		COMPREPLY=($(compgen -c -- "$2" | sort -u))
	else
		COMPREPLY=($(compgen -f -- "$2"))
	fi
}

_btrace()
{
	local cword=$COMP_CWORD bt=${COMP_WORDS[0]}
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd=${COMP_WORDS[1]} i

	COMPREPLY=()
	if ((cword == 1)); then
		COMPREPLY=($(compgen -W "$(_btrace_commands "$bt") --help --version" -- "$cur"))
		return
	fi
	case $prev in
	--source)
		COMPREPLY=($(compgen -W "auto kmod-bts kmod-pebs kmod-step perf-bts ptrace-step qemu-user" -- "$cur"))
		return ;;
	--mode)
		COMPREPLY=($(compgen -W "block ring stop" -- "$cur"))
		return ;;
	--format)
		if [[ $cmd == export ]]; then
			COMPREPLY=($(compgen -W "folded speedscope chrome perfetto" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "compact raw tnt" -- "$cur"))
		fi
		return ;;
	--syntax)
		COMPREPLY=($(compgen -W "att intel" -- "$cur"))
		return ;;
	--pebs-event)
		COMPREPLY=($(compgen -W "all-branches near-taken" -- "$cur"))
		return ;;
	-p | --pid | --attach)
		COMPREPLY=($(compgen -W "$(ps -e -o pid= 2>/dev/null)" -- "$cur"))
		return ;;
	-o | --output | -x | --script | --trace)
		_btrace_files "$cur"
		return ;;
	--buffer | --keep | --last | --from | --to | --thread | --at | --cpu | --skip | \
	--max-size | --duration | --listen | --function | --object | --grep | --addr | \
	--pebs-period)
		return ;;
	esac
	if [[ $cmd == help ]]; then
		((cword == 2)) && COMPREPLY=($(compgen -W "$(_btrace_commands "$bt")" -- "$cur"))
		return
	fi
	# record, gdbserver: once the program is named, complete its arguments.
	if [[ $cmd == record || $cmd == gdbserver ]]; then
		for ((i = 2; i < cword; i++)); do
			case ${COMP_WORDS[i]} in
			--) _btrace_command_at $((i + 1)) "$cur"; return ;;
			-*=*) ;;
			-o | --output | -p | --pid | --source | --mode | --buffer | --keep | \
			--format | --cpu | --skip | --max-size | --duration | --listen | \
			--attach | --pebs-event | --pebs-period) ((i++)) ;;
			-*) ;;
			*) _btrace_command_at $i "$cur"; return ;;
			esac
		done
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_btrace_options "$bt" "$cmd")" -- "$cur"))
		return
	fi
	if [[ $cmd == record || $cmd == gdbserver ]]; then
		_btrace_command_at $cword "$cur"
		return
	fi
	_btrace_files "$cur"
}
complete -F _btrace btrace
