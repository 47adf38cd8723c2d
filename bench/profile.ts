/**
 * Summarises a V8 .cpuprofile (node --cpu-prof) by self time: the functions, and the packages or
 * project files, that the busy CPU time went to. Idle time is left out of the percentages.
 * Frames in compiled files with a source map beside them (dist/, the server bundle) are charged to
 * the original TypeScript file and line. Also usable alone: `npx tsx bench/profile.ts <file.cpuprofile> [top]`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  name: string;
  selfMs: number;
  /** Share of the busy (non-idle) time. */
  percent: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  functions: ProfileEntry[];
  modules: ProfileEntry[];
}

const root = process.cwd();
const sourceMaps = new Map<string, SourceMap | null>();

function sourceMapOf(url: string): SourceMap | null {
  let map = sourceMaps.get(url);
  if (map === undefined) {
    const file = `${fileURLToPath(url)}.map`;
    map = existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null;
    sourceMaps.set(url, map);
  }
  return map;
}

/** A frame of the compiled bundle, moved to its original source file and line when a map says where. */
function original(frame: CallFrame): CallFrame {
  // Packages ship maps of their own; they stay named by package, as moduleOf expects.
  if (!frame.url.startsWith('file://') || frame.url.includes('/node_modules/')) return frame;
  const entry = sourceMapOf(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber);
  if (!entry || !('originalSource' in entry)) return frame;
  const source = entry.originalSource.startsWith('file://')
    ? entry.originalSource
    : pathToFileURL(path.resolve(path.dirname(fileURLToPath(frame.url)), entry.originalSource)).href;
  return { ...frame, url: source, lineNumber: entry.originalLine, columnNumber: entry.originalColumn };
}

function shortUrl(url: string): string {
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  return file.startsWith(root) ? path.relative(root, file) : file;
}

/** Which package (or project file, or runtime part) a frame belongs to. */
function moduleOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native / V8 builtins)';
  if (url.startsWith('node:')) return 'node: runtime';
  const file = shortUrl(url);
  const at = file.lastIndexOf('node_modules/');
  if (at === -1) return file;
  const parts = file.slice(at + 'node_modules/'.length).split('/');
  const pkg = parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  // Next bundles its own copies of many libraries; name the bundled one rather than "next".
  if (pkg === 'next' && parts[1] === 'dist' && parts[2] === 'compiled') return `next (compiled ${parts[3]})`;
  return pkg;
}

function functionOf(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  return `${name}  ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
}

function top(totals: Map<string, number>, busyMs: number, count: number): ProfileEntry[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, selfMs]) => ({ name, selfMs, percent: busyMs > 0 ? (100 * selfMs) / busyMs : 0 }));
}

export function summarizeProfile(file: string, count = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((n) => [n.id, original(n.callFrame)]));
  const functions = new Map<string, number>();
  const modules = new Map<string, number>();
  let busyMs = 0;
  let idleMs = 0;
  // Each delta is the time elapsed before a sample; it is charged to the sample before it.
  for (let i = 0; i < profile.samples.length; i += 1) {
    const frame = frames.get(profile.samples[i]!);
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (!frame) continue;
    if (frame.functionName === '(idle)') {
      idleMs += ms;
      continue;
    }
    busyMs += ms;
    const fn = functionOf(frame);
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
    const mod = moduleOf(frame);
    modules.set(mod, (modules.get(mod) ?? 0) + ms);
  }
  return { busyMs, idleMs, functions: top(functions, busyMs, count), modules: top(modules, busyMs, count) };
}

export function formatSummary(summary: ProfileSummary): string {
  const line = (e: ProfileEntry) => `  ${e.percent.toFixed(1).padStart(5)}%  ${e.selfMs.toFixed(0).padStart(7)} ms  ${e.name}`;
  return [
    `busy ${(summary.busyMs / 1000).toFixed(1)} s, idle ${(summary.idleMs / 1000).toFixed(1)} s (percentages are of busy time)`,
    'Top packages / files by self time:',
    ...summary.modules.map(line),
    'Top functions by self time:',
    ...summary.functions.map(line),
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, count] = process.argv.slice(2);
  if (!file) {
    console.error('usage: tsx bench/profile.ts <file.cpuprofile> [top]');
    process.exit(1);
  }
  console.log(formatSummary(summarizeProfile(file, count ? Number(count) : 25)));
}
