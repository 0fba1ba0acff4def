export async function init(dir: string, _opts: { name?: string }): Promise<{ dir: string; files: string[] }> {
  throw new Error(`not yet: ${dir}`);
}
