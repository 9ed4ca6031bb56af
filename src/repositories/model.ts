export interface Repository {
  repositoryId: string;
  name: string;
  description: string;
  rootPath: string;
  registeredAt: number;
}

/**
 * A registration as a wiki's derived state records it (each index keeps one; see
 * src/index/meta.ts), with the id of the state database it was registered in, so a
 * registry that lost it can take it back.
 */
export interface RecordedRegistration extends Repository {
  ledgerId: string | null;
}
