/** The weekly report's digest: one message per published version to each channel with `digest: true` (filled in below). */
export async function sendDigest(_env: Env, _week: string, _version: number): Promise<void> {}
