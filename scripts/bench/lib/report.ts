import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fmt } from "./stats.ts";

/** One line of results: Attic's figure beside its reference, measured in the same run. */
export interface Figure {
  benchmark: string;
  metric: string;
  unit: string;
  attic: number;
  /** What Attic is compared with, e.g. "nginx 1 worker sendfile". */
  referenceName: string;
  reference: number;
  /** attic / reference: above 1 is better when `higherIsBetter`, below 1 otherwise. */
  ratio: number;
  higherIsBetter: boolean;
  /** Peak RSS (VmHWM) of the Attic process over the benchmark, MiB. */
  atticPeakRssMiB: number;
  atticSamples: number[];
  referenceSamples: number[];
  note?: string;
}

/** Builds a Figure, computing the ratio. */
export function figure(f: Omit<Figure, "ratio">): Figure {
  return { ...f, ratio: f.attic / f.reference };
}

/** Writes one figure line to stdout (the bench is a CLI: its output is the report). */
export function printFigure(f: Figure): void {
  const better = f.higherIsBetter ? "higher is better" : "lower is better";
  process.stdout.write(
    `  ${f.metric.padEnd(44)} attic ${fmt(f.attic).padStart(8)} ${f.unit.padEnd(6)} | ` +
      `${f.referenceName} ${fmt(f.reference)} | ratio ${fmt(f.ratio)} (${better}) | ` +
      `attic peak RSS ${fmt(f.atticPeakRssMiB)} MiB${f.note ? ` | ${f.note}` : ""}\n`,
  );
}

/** Progress and notices go to stderr so stdout stays the report. */
export function say(msg: string): void {
  process.stderr.write(`${msg}\n`);
}

/** A Markdown table of the figures (pasted into README's Performance section). */
export function markdownTable(figures: Figure[]): string {
  const rows = figures.map(
    (f) =>
      `| ${f.benchmark} | ${f.metric} | ${fmt(f.attic)} ${f.unit} | ${f.referenceName}: ${fmt(f.reference)} | ` +
      `${fmt(f.ratio)} | ${fmt(f.atticPeakRssMiB)} MiB |`,
  );
  return [
    "| benchmark | metric | Attic | reference | ratio | Attic peak RSS |",
    "|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

/** Saves the run as JSON under bench-results/ (timestamped, plus latest.json) and returns the path. */
export function writeResults(dir: string, run: { machine: Record<string, unknown>; figures: Figure[] }) {
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const body = JSON.stringify({ date: new Date().toISOString(), ...run }, null, 2);
  const file = join(dir, `bench-${stamp}.json`);
  writeFileSync(file, body);
  writeFileSync(join(dir, "latest.json"), body);
  writeFileSync(join(dir, "latest.md"), `${markdownTable(run.figures)}\n`);
  return file;
}
