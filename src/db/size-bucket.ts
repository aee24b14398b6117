/**
 * SQL for the bucket of a size in bytes held in `column`, as
 * files_live_size_bucket_idx is keyed (migration 0021): its number of
 * digits times 100 plus its first two digits (a size below 100 is its own
 * bucket). Buckets follow sizes in order. Written without a comma (the
 * first two digits by dividing by a power of ten, not `substr`), which
 * drizzle-kit's index columns cannot hold.
 */
export function sizeBucket(column: string): string {
  let whens = "";
  for (let digits = 3; digits <= 19; digits++) whens += ` WHEN ${digits} THEN ${10n ** BigInt(digits - 2)}`;
  return `length(${column}) * 100 + ${column} / CASE length(${column})${whens} ELSE 1 END`;
}
