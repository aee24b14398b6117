import { homeId } from "../lib/api.ts";
import { folderUrl, linkClick } from "../lib/router.ts";
import type { FileRec } from "../lib/types.ts";
import { Icon } from "./Icon.tsx";

/** Shared files › Photos › 2019 (or My files › …): each crumb a link; the last one is the current folder. */
export function Breadcrumbs({ chain }: { chain: FileRec[] }) {
  // A personal folder is a root of its own: its path starts at "My files".
  const personal = chain.length > 0 && chain[0]!.id === homeId();
  return (
    <nav class="crumbs" aria-label="Folder path">
      <ol>
        {personal ? null : (
          <li>
            <a href="/" onClick={linkClick} aria-current={chain.length === 0 ? "page" : undefined}>
              <Icon name="home" size={16} />
              <span>Shared files</span>
            </a>
          </li>
        )}
        {chain.map((d, i) => (
          <li key={d.id}>
            <a
              href={folderUrl(d.id)}
              onClick={linkClick}
              aria-current={i === chain.length - 1 ? "page" : undefined}
            >
              {i === 0 && d.id === homeId() ? "My files" : d.name}
            </a>
          </li>
        ))}
      </ol>
    </nav>
  );
}
