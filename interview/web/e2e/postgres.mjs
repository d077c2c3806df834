// A throwaway Postgres for the browser tests. With TEST_DATABASE_URL set, a
// fresh database is created on that server and dropped afterwards.
// Otherwise a private cluster is initialised in a temporary directory and
// started on a free loopback port, as the unprivileged "postgres" user when
// running as root, because Postgres refuses to run as root.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { freePort } from './util.mjs';

function pgBin() {
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (fromConfig.status === 0 && existsSync(join(fromConfig.stdout.trim(), 'initdb'))) return fromConfig.stdout.trim();
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (existsSync(join(base, v, 'bin', 'initdb'))) return join(base, v, 'bin');
  }
  throw new Error('Postgres binaries not found: install postgresql (make deps) or set TEST_DATABASE_URL');
}

export async function startPostgres() {
  const bin = pgBin();
  const psql = join(bin, 'psql');
  const external = process.env.TEST_DATABASE_URL;
  if (external) {
    const name = `e2e_${randomBytes(6).toString('hex')}`;
    execFileSync(psql, [external, '-v', 'ON_ERROR_STOP=1', '-qc', `CREATE DATABASE ${name}`]);
    const u = new URL(external);
    u.pathname = `/${name}`;
    return {
      url: u.toString(),
      sql: (q) => execFileSync(psql, [u.toString(), '-v', 'ON_ERROR_STOP=1', '-qAtc', q], { encoding: 'utf8' }).trim(),
      stop: async () => {
        spawnSync(psql, [external, '-qc', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]);
      },
    };
  }

  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'interview-e2e-pg-'));
  const data = join(dir, 'data');
  let uid;
  let gid;
  if (root) {
    uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }));
    gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }));
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const as = (cmd, args) => execFileSync(cmd, args, { uid, gid, stdio: ['ignore', 'pipe', 'pipe'], cwd: dir, env: { ...process.env, LC_ALL: 'C' } });
  as(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  as(join(bin, 'pg_ctl'), [
    '-D', data, '-l', join(dir, 'log'), '-w', '-t', '60', 'start',
    '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
  ]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`;
  return {
    url,
    sql: (q) => execFileSync(psql, [url, '-v', 'ON_ERROR_STOP=1', '-qAtc', q], { encoding: 'utf8' }).trim(),
    stop: async () => {
      try {
        as(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
