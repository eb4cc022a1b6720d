/**
 * `node dist/cli.js <command>`: the headless entry for CI and GPU boxes without VS Code.
 * Exit status: 0 success, 1 findings at error severity / a failed step, 2 usage error.
 */
import { lintMain } from './lint';
import { runMain } from './run';

const USAGE = `usage: dsw <command> [options]

commands:
  lint [--format text|json|sarif] [--config FILE] [--fix] PATH...   lint Python snapshot code
  run --worker NAME [--steps a,b,...] [--format text|json] [--config FILE]   run the snapshot workflow

Run "dsw <command> --help" for a command's options.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'lint':
      return lintMain(rest);
    case 'run':
      return runMain(rest);
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(USAGE + '\n');
      return 0;
    default:
      process.stderr.write((command ? `unknown command "${command}"\n\n` : '') + USAGE + '\n');
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`dsw: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    process.exitCode = 2;
  },
);
