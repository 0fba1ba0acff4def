// The jobs running on this instance, by label, and the labels whose job saw its cancellation.
export const gates = new Map<string, () => void>();
export const aborted = new Set<string>();
