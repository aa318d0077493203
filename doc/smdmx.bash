# bash completion for smdmx, smd2dmx and dmx2smd

_smdmx_convert_options="-o -d -r --recursive -f --force -u --update -j --jobs --threads -k --keep-going --depfile -q --quiet
	-W -Werror --max-warnings -v --verbose --vta --target --encoding --encoding-version --model-version
	--keys --key-tolerance --fps --clips --clip --goldsrc --lf --scale --up-axis --qc --model --report --help --version"

# Completes the option values and files of a conversion; $1: the input extensions.
_smdmx_convert()
{
	local cur=$2 prev=$3 exts=$1
	case $prev in
	-o | --depfile) _filedir; return ;;
	--report) _filedir html; return ;;
	-d) _filedir -d; return ;;
	--vta) _filedir vta; return ;;
	--qc) _filedir '@(qc|QC)'; return ;;
	--model) return ;;
	--target) COMPREPLY=($(compgen -W "sdk2013 tf2 gmod l4d2 portal2 csgo sfm source2" -- "$cur")); return ;;
	--encoding) COMPREPLY=($(compgen -W "keyvalues2 keyvalues2_flat binary binary_seqids" -- "$cur")); return ;;
	--encoding-version) COMPREPLY=($(compgen -W "1 2 3 4 5 9" -- "$cur")); return ;;
	--model-version) COMPREPLY=($(compgen -W "1 15 18 22" -- "$cur")); return ;;
	--keys) COMPREPLY=($(compgen -W "all reduce" -- "$cur")); return ;;
	--up-axis) COMPREPLY=($(compgen -W "X Y Z" -- "$cur")); return ;;
	--to) COMPREPLY=($(compgen -W "smd sma phys vta dmx" -- "$cur")); return ;;
	-W) COMPREPLY=($(compgen -W "error" -- "$cur")); return ;;
	-j | --jobs | --threads | --max-warnings | --fps | --key-tolerance | --scale | --clip) return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$_smdmx_convert_options" -- "$cur"))
		return
	fi
	_filedir "$exts"
}

_smd2dmx()
{
	local cur prev words cword
	_init_completion || return
	_smdmx_convert '@(smd|SMD|sma|SMA|phys|PHYS|vta|VTA)' "$cur" "$prev"
}

_dmx2smd()
{
	local cur prev words cword
	_init_completion || return
	_smdmx_convert '@(dmx|DMX)' "$cur" "$prev"
}

_smdmx()
{
	local cur prev words cword
	_init_completion || return
	if ((cword == 1)); then
		COMPREPLY=($(compgen -W "convert info diff check dump qc preview report --help --version" -- "$cur"))
		return
	fi
	case ${words[1]} in
	convert)
		[[ $prev == --to ]] || [[ $cur != -* ]] || { COMPREPLY=($(compgen -W "$_smdmx_convert_options --to" -- "$cur")); return; }
		_smdmx_convert '@(smd|SMD|sma|SMA|phys|PHYS|vta|VTA|dmx|DMX)' "$cur" "$prev"
		;;
	info)
		[[ $cur == -* ]] && COMPREPLY=($(compgen -W "--json --help" -- "$cur")) || _filedir '@(smd|SMD|sma|SMA|phys|PHYS|vta|VTA|dmx|DMX|qc|QC|qci|QCI)'
		;;
	diff)
		case $prev in --tolerance | --rotation-tolerance | --max) return ;; esac
		[[ $cur == -* ]] && COMPREPLY=($(compgen -W "--tolerance --rotation-tolerance --max -q --quiet --help" -- "$cur")) ||
			_filedir '@(smd|SMD|sma|SMA|phys|PHYS|vta|VTA|dmx|DMX)'
		;;
	check)
		if [[ $prev == --target ]]; then
			COMPREPLY=($(compgen -W "goldsrc sdk2013 tf2 gmod l4d2 portal2 csgo sfm source2" -- "$cur"))
			return
		fi
		[[ $cur == -* ]] && COMPREPLY=($(compgen -W "--target --help" -- "$cur")) || _filedir '@(smd|SMD|sma|SMA|phys|PHYS|vta|VTA|dmx|DMX)'
		;;
	qc)
		case $prev in
		--to) COMPREPLY=($(compgen -W "dmx smd" -- "$cur")); return ;;
		--rig) COMPREPLY=($(compgen -W "qc dmx" -- "$cur")); return ;;
		esac
		[[ $cur == -* ]] && { COMPREPLY=($(compgen -W "--to -d --rig $_smdmx_convert_options" -- "$cur")); return; }
		_smdmx_convert '@(qc|QC)' "$cur" "$prev"
		;;
	dump)
		[[ $cur == -* ]] && COMPREPLY=($(compgen -W "--full --help" -- "$cur")) || _filedir '@(dmx|DMX)'
		;;
	preview)
		case $prev in
		-o) _filedir png; return ;;
		-d) _filedir -d; return ;;
		--views) COMPREPLY=($(compgen -W "front side top three-quarter all" -- "$cur")); return ;;
		--size | --shape | --clip | --frame | --model | --bodygroup | -j) return ;;
		esac
		[[ $cur == -* ]] && COMPREPLY=($(compgen -W "-o -d --views --size --skeleton --shape --shapes --clip --frame --uv --model --bodygroup -f --force -j -q --quiet --help" -- "$cur")) ||
			_filedir '@(smd|SMD|sma|SMA|phys|PHYS|vta|VTA|dmx|DMX|qc|QC)'
		;;
	report)
		case $prev in
		-o) _filedir html; return ;;
		-j) return ;;
		esac
		[[ $cur == -* ]] && COMPREPLY=($(compgen -W "-o -j -f --force -q --quiet --help" -- "$cur")) || _filedir -d
		;;
	esac
}

complete -F _smdmx smdmx
complete -F _smd2dmx smd2dmx
complete -F _dmx2smd dmx2smd
