# bash completion for slsdbg: subcommands, then recording names under
# $SLSDBG_DIR (or ~/.local/share/slsdbg) and files.
_slsdbg() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local cmds="record ls info replay restore dump backtrace bisect last-write help"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
    return
  fi
  case $cur in
    -*) COMPREPLY=($(compgen -W "--help --json --at --last --time --check --goto -o" -- "$cur")) ;;
    *)
      local root=${SLSDBG_DIR:-$HOME/.local/share/slsdbg} names=""
      [ -d "$root" ] && names=$(cd "$root" && ls -1 2>/dev/null)
      COMPREPLY=($(compgen -W "$names" -- "$cur") $(compgen -f -- "$cur"))
      ;;
  esac
}
complete -F _slsdbg slsdbg
