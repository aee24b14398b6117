import { folderUrl, linkClick } from "../lib/router.ts";
import type { FileRec } from "../lib/types.ts";
import { Icon } from "./Icon.tsx";

/** Home › Photos › 2019: each crumb a link; the last one is the current folder. */
export function Breadcrumbs({ chain }: { chain: FileRec[] }) {
  return (
    <nav class="crumbs" aria-label="Folder path">
      <ol>
        <li>
          <a href="/" onClick={linkClick} aria-current={chain.length === 0 ? "page" : undefined}>
            <Icon name="home" size={16} />
            <span>Home</span>
          </a>
        </li>
        {chain.map((d, i) => (
          <li key={d.id}>
            <a
              href={folderUrl(d.id)}
              onClick={linkClick}
              aria-current={i === chain.length - 1 ? "page" : undefined}
            >
              {d.name}
            </a>
          </li>
        ))}
      </ol>
    </nav>
  );
}
