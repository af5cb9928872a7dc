import type { ToolDefinition } from './tool';

/**
 * What a tool package exports (as `toolPackage`, or as its default export): the unit that
 * ARVIS_TOOL_PACKAGES names and the migrate step applies.
 */
export interface ToolPackage {
  /** Unique among the packages a service loads; migrations are recorded under it. */
  readonly name: string;
  readonly version: string;
  // `any`: each tool has its own schemas; the host reaches them only through safeParse.
  readonly tools: readonly ToolDefinition<any, any>[];
  /**
   * Absolute path of a folder of `<ordered name>/migration.sql` files creating the tables the
   * tools own; applied in name order after the project's own migrations, each once.
   */
  readonly migrationsDir?: string;
  /**
   * The dispatcher pool that runs these tools (ADR 0080): a lowercase name, default `shared`. The
   * authorizer routes each intent to its pool's topic; a dispatcher loads only its pools' packages.
   */
  readonly pool?: string;
}

/** Declares a package; the result is frozen. */
export function defineToolPackage(pkg: ToolPackage): ToolPackage {
  return Object.freeze({ ...pkg, tools: Object.freeze([...pkg.tools]) });
}
