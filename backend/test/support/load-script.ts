import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they came, interleaved. */
  out: string;
}

const root = join(__dirname, '..', '..', '..');

/** Runs `load-tests/<script>` (on the built code: `npm test` builds first) from the repository root until it exits. */
export function runLoadScript(script: string, args: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'load-tests', script), ...args], { cwd: root, env });
    const run: ScriptRun = { code: null, stdout: '', stderr: '', out: '' };
    child.stdout.on('data', (d) => {
      run.stdout += d;
      run.out += d;
    });
    child.stderr.on('data', (d) => {
      run.stderr += d;
      run.out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ ...run, code }));
  });
}
