// Rules of the client's layout, read from its source: no import cycle
// (App.tsx is imported by nothing but main.tsx), one place for a lost
// session, one way to load a page's data.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = dirname(fileURLToPath(import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

const files = sources(root);
const text = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
const rel = (f: string) => relative(root, f);

// The files f imports (relative imports only; type-only imports count too:
// they tie the modules together just the same for a reader).
function importsOf(f: string): string[] {
  const out: string[] = [];
  for (const m of text.get(f)!.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']*)'/gm)) {
    const base = resolve(dirname(f), m[1]);
    const hit = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((c) => text.has(c));
    if (hit) out.push(hit);
  }
  return out;
}

/** Every import cycle, as the files around it. */
export function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open') found.push([...stack.slice(stack.indexOf(g)), g]);
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

describe('the web client layout', () => {
  const graph = new Map(files.map((f) => [f, importsOf(f)]));

  it('finds a cycle where there is one', () => {
    expect(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual([['a', 'b', 'c', 'a']]);
    expect(cycles(new Map([['a', ['b']], ['b', []], ['c', ['a', 'b']]]))).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(graph.size).toBeGreaterThan(20);
    expect(cycles(graph).map((c) => c.map(rel).join(' → '))).toEqual([]);
  });

  it('imports App.tsx only from main.tsx', () => {
    const importers = files.filter((f) => graph.get(f)!.some((g) => rel(g) === 'App.tsx')).map(rel);
    expect(importers).toEqual(['main.tsx']);
  });

  it('handles a 401 only in the API client', () => {
    const where = files.filter((f) => /status\s*===\s*401|onAuthLost/.test(text.get(f)!)).map(rel);
    expect(where).toEqual(['api/client.ts']);
  });

  it('reads server JSON only in api/decode.ts', () => {
    const where = files.filter((f) => /\.json\(\)/.test(text.get(f)!)).map(rel);
    expect(where).toEqual(['api/client.ts']);
    // client.ts hands every body it parses to decode.ts.
    expect(text.get(join(root, 'api/client.ts'))).toMatch(/decode\./);
  });

  it('loads page data only through useLoad', () => {
    // A page or component that starts a load in an effect of its own would
    // call the API inside useEffect; with useLoad none does.
    const where = files.filter((f) => /useEffect\(\s*\(\)\s*=>\s*\{[^}]*\bapi\s*\.\s*(session|shared|history|active|config|me)\(/.test(text.get(f)!)).map(rel);
    expect(where).toEqual([]);
    const loaders = files.filter((f) => /\buseLoad\(/.test(text.get(f)!)).map(rel).sort();
    expect(loaders).toEqual(['App.tsx', 'components/ActiveInterviews.tsx', 'pages/History.tsx', 'pages/Interview.tsx', 'pages/Report.tsx', 'pages/Shared.tsx']);
  });
});
