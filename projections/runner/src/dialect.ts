/**
 * Everything that differs between the two engines a projections database can live in, SQLite
 * (`<root>/projections.db`, the default) and PostgreSQL (a schema of the `--database`), in one
 * place: the projections' `migrate`, `apply` and queries are written once against Kysely and
 * never ask which engine runs them, except through what this module exports. The list of
 * differences is in projections/README.md.
 *
 * `postgresSchemaPlugin` rewrites, on PostgreSQL only, what the shared Kysely code says in
 * SQLite's terms:
 *   - `integer` columns become `bigint` (SQLite's integer is 64-bit; PostgreSQL's 32-bit one
 *     cannot hold the millisecond times and byte offsets the tables keep);
 *   - `text` columns get the "C" collation, so ordering by text (ids as tie-breakers) is by
 *     code point, as SQLite's default BINARY collation orders, whatever the database's locale;
 *   - SQLite's table options (`without rowid`, given with `modifyEnd`) are dropped;
 *   - a NUL character in a string value becomes U+FFFD: PostgreSQL's text cannot hold NUL,
 *     and one title or error message with it would fail every batch that carries it.
 * `localTimeBucket` is the one query expression the engines spell differently (local calendar
 * buckets of an epoch-ms column).
 */
import {
  ColumnDefinitionNode,
  CreateTableNode,
  DataTypeNode,
  OperationNodeTransformer,
  PostgresAdapter,
  PrimitiveValueListNode,
  RawNode,
  ValueNode,
  sql,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RawBuilder,
  type RootOperationNode,
  type UnknownRow,
} from "kysely";

export type ProjectionEngine = "sqlite" | "postgres";

/** Which engine a Kysely handle talks to. */
export function engineOf(db: Kysely<any>): ProjectionEngine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}

/** A `postgres://` or `postgresql://` URL: where a projections database is PostgreSQL rather than a file. */
export function isPostgresTarget(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target);
}

const NUL = /\u0000/g;

function withoutNul(value: unknown): unknown {
  return typeof value === "string" && value.includes("\u0000") ? value.replace(NUL, "\uFFFD") : value;
}

class PostgresSchemaTransformer extends OperationNodeTransformer {
  protected override transformCreateTable(node: CreateTableNode): CreateTableNode {
    const out = super.transformCreateTable(node);
    return { ...out, endModifiers: undefined } as CreateTableNode;
  }

  protected override transformColumnDefinition(node: ColumnDefinitionNode): ColumnDefinitionNode {
    const out = super.transformColumnDefinition(node);
    if (!DataTypeNode.is(out.dataType)) return out;
    if (out.dataType.dataType === "integer") return { ...out, dataType: DataTypeNode.create("bigint") };
    if (out.dataType.dataType === "text") return { ...out, dataType: RawNode.createWithSql('text collate "C"') };
    return out;
  }

  protected override transformValue(node: ValueNode): ValueNode {
    const out = super.transformValue(node);
    return typeof out.value === "string" && out.value.includes("\u0000") ? { ...out, value: withoutNul(out.value) } : out;
  }

  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    const out = super.transformPrimitiveValueList(node);
    return out.values.some((v) => typeof v === "string" && v.includes("\u0000")) ? { ...out, values: out.values.map(withoutNul) } : out;
  }
}

/** The plugin every PostgreSQL projections handle is built with (see the top of this file). */
export function postgresSchemaPlugin(): KyselyPlugin {
  const transformer = new PostgresSchemaTransformer();
  return {
    transformQuery: (args: PluginTransformQueryArgs): RootOperationNode => transformer.transformNode(args.node),
    transformResult: async (args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => args.result,
  };
}

/** A string value as PostgreSQL can store it (for rows that bypass Kysely: the row writer). */
export const postgresText = withoutNul;

export type Granularity = "minute" | "hour" | "day" | "week" | "month";

/**
 * The local calendar bucket (`YYYY-MM-DDTHH:MM`, `YYYY-MM-DDTHH:00`, `YYYY-MM-DD` of the day or of
 * the week's Monday, `YYYY-MM`) of an epoch-ms column, in the time zone of the process asking:
 * SQLite's `'localtime'` modifier, PostgreSQL's `at time zone` with the process's zone name.
 */
export function localTimeBucket(db: Kysely<any>, column: RawBuilder<unknown>, granularity: Granularity): RawBuilder<string> {
  if (engineOf(db) === "sqlite") {
    const local = sql`${column} / 1000, 'unixepoch', 'localtime'`;
    switch (granularity) {
      case "minute":
        return sql<string>`strftime('%Y-%m-%dT%H:%M', ${local})`;
      case "hour":
        return sql<string>`strftime('%Y-%m-%dT%H:00', ${local})`;
      case "day":
        return sql<string>`date(${local})`;
      case "week":
        return sql<string>`date(${local}, 'weekday 0', '-6 days')`;
      case "month":
        return sql<string>`strftime('%Y-%m', ${local})`;
    }
  }
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  const local = sql`(to_timestamp(${column} / 1000.0) at time zone ${sql.lit(zone)})`;
  switch (granularity) {
    case "minute":
      return sql<string>`to_char(${local}, 'YYYY-MM-DD"T"HH24:MI')`;
    case "hour":
      return sql<string>`to_char(${local}, 'YYYY-MM-DD"T"HH24:00')`;
    case "day":
      return sql<string>`to_char(${local}, 'YYYY-MM-DD')`;
    case "week":
      return sql<string>`to_char(date_trunc('week', ${local}), 'YYYY-MM-DD')`;
    case "month":
      return sql<string>`to_char(${local}, 'YYYY-MM')`;
  }
}
