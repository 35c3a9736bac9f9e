/**
 * JSON for a `<script type="application/json">` element: `<`, `>` and `&` written as \u escapes (so a
 * `</script>` inside a label cannot end the element, nor `<!--` open a comment), and the line
 * separators JavaScript once choked on. JSON.parse reads it back unchanged.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
