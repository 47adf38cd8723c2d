import type { Command } from 'commander';
import { action, examples } from '../command.ts';
import { UsageError } from '../errors.ts';
import type { Io } from '../io.ts';

interface CommandPath {
  /** `cloud servers create`. */
  path: string;
  subcommands: string[];
  options: string[];
}

/** Every command of the tree with its subcommands and its own long and short options (plus --help). */
export function commandPaths(program: Command): CommandPath[] {
  const paths: CommandPath[] = [];
  const walk = (command: Command, prefix: string) => {
    const path = prefix ? `${prefix} ${command.name()}` : command.name();
    const options = command.options.flatMap((option) => [option.long, option.short].filter((flag): flag is string => Boolean(flag)));
    paths.push({ path, subcommands: command.commands.flatMap((sub) => [sub.name(), ...sub.aliases()]), options: [...options, '--help'] });
    for (const sub of command.commands) walk(sub, path);
  };
  walk(program, '');
  return paths;
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * Static completion scripts: the command tree is written into them, so a TAB costs no process.
 * The word before the cursor decides: after the deepest command named so far, a `-` completes its
 * options and the global ones, anything else its subcommands.
 */
export function bashCompletion(program: Command): string {
  const paths = commandPaths(program);
  const globals = paths[0]!.options.join(' ');
  return `# bash completion for cloud: eval "$(cloud completion bash)" in ~/.bashrc
_cloud() {
  local -A subcommands=(
${paths.map((p) => `    [${quote(p.path)}]=${quote(p.subcommands.join(' '))}`).join('\n')}
  )
  local -A options=(
${paths.map((p) => `    [${quote(p.path)}]=${quote(p.options.join(' '))}`).join('\n')}
  )
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd="cloud" word i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    [[ -n "\${subcommands["$cmd $word"]+set}" ]] && cmd="$cmd $word"
  done
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "\${options[$cmd]} ${globals}" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "\${subcommands[$cmd]}" -- "$cur"))
  fi
}
complete -F _cloud cloud
`;
}

export function zshCompletion(program: Command): string {
  const paths = commandPaths(program);
  const globals = paths[0]!.options.join(' ');
  return `#compdef cloud
# zsh completion for cloud: eval "$(cloud completion zsh)" in ~/.zshrc (after compinit)
_cloud() {
  local -A subcommands options
  subcommands=(
${paths.map((p) => `    ${quote(p.path)} ${quote(p.subcommands.join(' '))}`).join('\n')}
  )
  options=(
${paths.map((p) => `    ${quote(p.path)} ${quote(p.options.join(' '))}`).join('\n')}
  )
  local cmd=cloud word
  for word in "\${(@)words[2,CURRENT-1]}"; do
    [[ "$word" == -* ]] && continue
    (( \${+subcommands[$cmd $word]} )) && cmd="$cmd $word"
  done
  if [[ "\${words[CURRENT]}" == -* ]]; then
    compadd -- \${=options[$cmd]} ${globals}
  else
    compadd -- \${=subcommands[$cmd]}
  fi
}
compdef _cloud cloud
`;
}

export function registerCompletion(program: Command, io: Io): void {
  const command = program
    .command('completion')
    .description('print the shell completion script for bash or zsh')
    .argument('<shell>', 'bash or zsh')
    .action(
      action(io, async (ctx, [shell]) => {
        if (shell === 'bash') ctx.io.stdout.write(bashCompletion(program));
        else if (shell === 'zsh') ctx.io.stdout.write(zshCompletion(program));
        else throw new UsageError(`No completion for "${shell}": choose bash or zsh`);
      }),
    );
  examples(
    command,
    'cloud completion bash > ~/.local/share/bash-completion/completions/cloud',
    'eval "$(cloud completion bash)"   # or this, in ~/.bashrc',
    'eval "$(cloud completion zsh)"    # in ~/.zshrc, after compinit',
  );
}
