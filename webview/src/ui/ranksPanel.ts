// The ranks panel of a distributed job's run: which rank the graph shows (every rank merged, or
// one alone), and per rank a bar of its window split into compute / communication / startup /
// idle, the straggler ranks highlighted and a rank that ended abnormally (a signal, a checkpoint
// left by SIGKILL, no profile) marked with how. Text only (no markup from the profile).
import type { RanksData } from '../protocol';
import { PHASES, rankBars, type RankBar } from '../model/rankBars';
import { el } from './dom';

export class RanksPanel {
  readonly root: HTMLElement;
  private readonly select: HTMLSelectElement;
  private readonly rows: HTMLElement;
  private readonly steps: HTMLElement;
  private readonly summary: HTMLElement;
  private data: RanksData | null = null;

  /** `onTimeline`: the user asks for the ranks on one timeline (the host opens it). */
  constructor(private readonly onSelect: (rank: number | null) => void, onTimeline?: () => void) {
    this.select = el('select', { className: 'strata-ranks-select', title: 'Show every rank merged, or one rank alone', attrs: { 'aria-label': 'Rank' } });
    this.select.addEventListener('change', () => {
      const v = this.select.value;
      this.onSelect(v === 'all' ? null : Number(v));
    });
    this.summary = el('span', { className: 'strata-ranks-summary' });
    const legend = el('span', { className: 'strata-ranks-legend' },
      ...PHASES.map((p) => el('span', { className: 'strata-ranks-legend-item' }, el('span', { className: `strata-swatch strata-phase-${p}` }), p)));
    this.rows = el('div', { className: 'strata-ranks-rows' });
    const timeline = el('button', {
      className: 'strata-button strata-ranks-timeline', text: 'Timeline',
      title: 'Show the ranks on one timeline: each rank\'s steps, collective calls and GPU streams (Strata: Show Rank Timeline)',
      attrs: { type: 'button' },
    });
    timeline.hidden = !onTimeline;
    timeline.addEventListener('click', () => onTimeline?.());
    this.steps = el('div', { className: 'strata-ranks-steps' });
    this.root = el('div', { className: 'strata-ranks', attrs: { role: 'region', 'aria-label': 'Ranks' } },
      el('div', { className: 'strata-ranks-head' }, el('span', { className: 'strata-ranks-title', text: 'Ranks' }), this.select, timeline, this.summary, legend),
      this.rows, this.steps);
    this.root.hidden = true;
  }

  show(d: RanksData): void {
    this.data = d;
    const bars = rankBars(d);
    this.select.replaceChildren(el('option', { text: `All ${d.ranks.length} ranks merged`, attrs: { value: 'all' } }),
      ...d.ranks.map((r) => el('option', { text: `Rank ${r.rank} alone`, attrs: { value: String(r.rank) } })));
    this.select.value = d.selected === null || d.selected === undefined ? 'all' : String(d.selected);
    const ended = bars.filter((b) => b.ended).length;
    this.summary.textContent = `${d.metric}` + (d.stragglers.length ? ` · straggler: rank ${d.stragglers.join(', ')}` : '') +
      (ended ? ` · ${ended} ended abnormally` : '');
    this.rows.replaceChildren(...bars.map((b) => {
      const row = el('div', { className: 'strata-rank-row', attrs: { 'data-rank': String(b.rank) } });
      if (b.straggler) row.classList.add('strata-rank-straggler');
      if (b.ended) row.classList.add('strata-rank-ended');
      if (b.selected) row.classList.add('strata-rank-selected');
      const bar = el('div', { className: 'strata-rank-bar', title: b.title });
      PHASES.forEach((p, i) => {
        if (!(b.widths[i] > 0)) return;
        const seg = el('span', { className: `strata-rank-seg strata-phase-${p}`, attrs: { 'data-phase': p } });
        seg.style.width = `${(b.widths[i] * 100).toFixed(3)}%`;   // the CSSOM: the CSP allows no style attributes
        bar.append(seg);
      });
      const marks: HTMLElement[] = [];
      if (b.straggler) marks.push(el('span', { className: 'strata-rank-mark strata-rank-mark-straggler', text: 'straggler' }));
      if (b.ended) marks.push(el('span', { className: 'strata-rank-mark strata-rank-mark-ended', text: b.missing ? 'no profile' : `ended: ${b.ended}` }));
      row.append(el('span', { className: 'strata-rank-label', text: b.label }), bar, el('span', { className: 'strata-rank-marks' }, ...marks));
      return row;
    }));
    this.showSteps(d, bars);
    this.root.hidden = false;
  }

  /** Per rank, its median step (compute vs communication) and how often it came last. */
  private showSteps(d: RanksData, bars: RankBar[]): void {
    const st = d.steps;
    if (!st || !bars.some((b) => b.step)) { this.steps.replaceChildren(); this.steps.hidden = true; return; }
    const where = st.file ? ` at ${st.file.split('/').pop()}:${st.line}` : '';
    const head = el('div', { className: 'strata-ranks-steps-head',
      text: `Median step of ${st.count} steps, each ended by ${st.collective}${where}` });
    const grid = el('div', { className: 'strata-ranks-rows' });
    for (const b of bars) {
      if (!b.step) continue;
      const bar = el('div', { className: 'strata-rank-bar', title: b.step.title });
      (['compute', 'communication'] as const).forEach((p, i) => {
        const w = b.step!.widths[i];
        if (!(w > 0)) return;
        const seg = el('span', { className: `strata-rank-seg strata-phase-${p}`, attrs: { 'data-phase': p } });
        seg.style.width = `${(w * 100).toFixed(3)}%`;
        bar.append(seg);
      });
      const row = el('div', { className: 'strata-rank-row strata-rank-step-row', attrs: { 'data-rank': String(b.rank) } },
        el('span', { className: 'strata-rank-label', text: b.label }), bar,
        el('span', { className: 'strata-rank-marks', text: b.step.issuedLast ? `last in ${b.step.issuedLast}/${st.count}` : '' }));
      if (b.straggler) row.classList.add('strata-rank-straggler');
      grid.append(row);
    }
    this.steps.replaceChildren(head, grid);
    this.steps.hidden = false;
  }

  hide(): void { this.data = null; this.root.hidden = true; }

  /** What the panel shows (for tests). */
  state(): { selected: number | null; rows: { rank: number; straggler: boolean; ended: string; phases: string[] }[];
    steps: { rank: number; last: string; phases: string[] }[] } | null {
    if (!this.data) return null;
    return {
      selected: this.data.selected,
      steps: [...this.steps.querySelectorAll('.strata-rank-step-row')].map((r) => ({
        rank: Number((r as HTMLElement).dataset.rank), last: r.querySelector('.strata-rank-marks')?.textContent ?? '',
        phases: [...r.querySelectorAll('.strata-rank-seg')].map((s) => (s as HTMLElement).dataset.phase ?? ''),
      })),
      rows: [...this.rows.children].map((r) => ({
        rank: Number((r as HTMLElement).dataset.rank),
        straggler: r.classList.contains('strata-rank-straggler'),
        ended: r.querySelector('.strata-rank-mark-ended')?.textContent ?? '',
        phases: [...r.querySelectorAll('.strata-rank-seg')].map((s) => (s as HTMLElement).dataset.phase ?? ''),
      })),
    };
  }
}
