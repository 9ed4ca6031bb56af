export interface Repository {
  repositoryId: string;
  name: string;
  description: string;
  rootPath: string;
  registeredAt: number;
}
