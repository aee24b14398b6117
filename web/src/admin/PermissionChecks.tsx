/** A set of permission checkboxes (`resource:action`), for API keys and roles. */
export function PermissionChecks(p: { choices: string[]; value: string[]; onChange(v: string[]): void }) {
  return (
    <fieldset class="checks">
      <legend>Permissions</legend>
      {p.choices.map((perm) => (
        <label key={perm} class="check-label">
          <input
            type="checkbox"
            checked={p.value.includes(perm)}
            onChange={(e) =>
              p.onChange(e.currentTarget.checked ? [...p.value, perm] : p.value.filter((x) => x !== perm))
            }
          />
          <span class="mono">{perm}</span>
        </label>
      ))}
    </fieldset>
  );
}
