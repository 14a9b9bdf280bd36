# bash completion for slsdbg: subcommands, then recording names under
# $SLSDBG_DIR (or ~/.local/share/slsdbg) and files.
_slsdbg() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local cmds="record ls info replay restore dump backtrace bisect last-write pack help"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "$cmds --help --version" -- "$cur"))
    return
  fi
  case $cur in
    -*)  # the options the command's --help names (every option is named there)
      local opts
      opts=$("${COMP_WORDS[0]}" help "${COMP_WORDS[1]}" 2>/dev/null | grep -oE -- '(^|[ [(|])--?[a-z][a-z-]*' | grep -oE -- '--?[a-z][a-z-]*' | sort -u)
      COMPREPLY=($(compgen -W "--help $opts" -- "$cur")) ;;
    *)
      local root=${SLSDBG_DIR:-$HOME/.local/share/slsdbg} names=""
      [ -d "$root" ] && names=$(cd "$root" && ls -1 2>/dev/null)
      COMPREPLY=($(compgen -W "$names" -- "$cur") $(compgen -f -- "$cur"))
      ;;
  esac
}
complete -F _slsdbg slsdbg
