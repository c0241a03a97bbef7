/**
 * The shell completion scripts. Each asks `hooktap complete -- WORDS...` at
 * every TAB and shows what it prints (`value<TAB>description` lines). They
 * need nothing else: no bash-completion package, no `readonly` variables (so
 * sourcing one twice is harmless). Pure.
 * @module
 */

const BASH = `# bash completion for hooktap: source <(hooktap completions bash)   (e.g. in ~/.bashrc)
_hooktap_complete() {
  local line="\${COMP_LINE:0:COMP_POINT}" cur prefix IFS=$' \\t\\n'
  local -a words candidates
  read -r -a words <<< "$line"
  [[ "$line" =~ [[:space:]]$ ]] && words+=("")
  cur="\${words[\${#words[@]}-1]}"
  # bash replaces only the part of the word after its last ":" or "=" (COMP_WORDBREAKS).
  prefix=""
  [[ "$cur" == *[=:]* ]] && prefix="\${cur%"\${cur##*[=:]}"}"
  IFS=$'\\n'
  candidates=($(hooktap complete -- "\${words[@]:1}" 2>/dev/null | cut -f1))
  COMPREPLY=("\${candidates[@]#"$prefix"}")
}
complete -o default -o nosort -F _hooktap_complete hooktap 2>/dev/null ||
  complete -o default -F _hooktap_complete hooktap
`;

const ZSH = `#compdef hooktap
# zsh completion for hooktap: hooktap completions zsh > ~/.zfunc/_hooktap   (fpath+=(~/.zfunc) before compinit)
_hooktap() {
  local -a described plain
  local line value
  for line in "\${(@f)$(hooktap complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}"; do
    [[ -z "$line" ]] && continue
    value="\${line%%$'\\t'*}"
    described+=("\${value//:/\\\\:}:\${line#*$'\\t'}")
    plain+=("$value")
  done
  if (( \${#plain} )); then _describe -t hooktap 'hooktap' described; else _files; fi
}
if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  _hooktap "$@"
elif (( $+functions[compdef] )); then
  compdef _hooktap hooktap
else
  print -u2 "hooktap completion: run 'autoload -U compinit && compinit' before loading it"
fi
`;

const FISH =
  `# fish completion for hooktap: hooktap completions fish > ~/.config/fish/completions/hooktap.fish
function __hooktap_complete
    set -l words (commandline -opc)[2..-1] (commandline -ct)
    hooktap complete -- $words 2>/dev/null
end
complete -c hooktap -f -a '(__hooktap_complete)'
`;

/** The completion script for `shell`. */
export function completionScript(shell: "bash" | "zsh" | "fish"): string {
  return shell === "bash" ? BASH : shell === "zsh" ? ZSH : FISH;
}
