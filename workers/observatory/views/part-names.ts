/**
 * The names of the public views' parts (views/parts.ts lists the parts; each part's `name` is one of these, which
 * the type checker holds: views/view-part.ts). Apart from the parts themselves, so that a duty that marks a part
 * (views/mark-views.ts) imports no part, nor what the parts import.
 */
export type ViewPartName =
  | 'status'
  | 'percentiles'
  | 'catalog'
  | 'profiles'
  | 'timeline'
  | 'bursts'
  | 'metrics'
  | 'history'
  | 'incidents'
  | 'vendor-incidents'
  | 'compare'
  | 'compare-days'
  | 'prompt-cache'
  | 'changes'
  | 'health';
