/** Wire shapes of the public REST API (interface.md, CONTRACT.md). */

export interface Tag {
  id: string;
  name: string;
  color: string;
  created_at?: string;
}

export interface FileRec {
  id: string;
  name: string;
  path: string;
  parent_id?: string | null;
  type: "file" | "directory" | "symlink";
  size: number;
  mime_type: string;
  hash?: string;
  created_at: string;
  updated_at: string;
  accessed_at?: string;
  tags?: Tag[];
  is_deleted?: boolean;
  deleted_at?: string | null;
  read_only?: boolean;
  is_offline?: boolean;
  watched_folder_id?: string | null;
}

export interface FileList {
  files: FileRec[];
  total: number;
}

export interface SearchResult extends FileList {
  page: number;
  page_size: number;
  total_pages: number;
}

export interface User {
  id: string;
  username: string;
  email: string;
  organization_id?: string;
  is_active?: boolean;
  created_at?: string;
  display_name?: string;
  must_change_password?: boolean;
  roles?: (string | { id?: string; name: string })[];
  role?: string;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  user?: User;
  must_change_password?: boolean;
}

export interface Role {
  id?: string;
  name: string;
  description?: string;
  permissions: string[];
}

export interface ApiKey {
  id: string;
  name: string;
  key?: string;
  permissions: string[];
  created_at: string;
  last_used_at?: string | null;
  expires_at?: string | null;
}

export interface PlaybackPosition {
  file_id: string;
  position_seconds: number;
  duration_seconds: number;
  last_updated?: string;
  file?: FileRec;
  watched?: boolean;
}

/** A watched folder with its scan figures (watched.schemas.ts). */
export interface WatchedFolder {
  id: string;
  name: string;
  path: string;
  directory_id?: string | null;
  status?: "idle" | "scanning" | "watching" | "polling" | "offline" | "error";
  status_message?: string;
  files_seen?: number;
  files_indexed?: number;
  scan_errors?: number;
  scan_rate?: number;
  last_scan_started_at?: string;
  last_scan_finished_at?: string;
  [k: string]: unknown;
}
