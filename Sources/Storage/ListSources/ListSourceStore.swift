import Foundation
import GRDB

/// The catalogue of list sources in the state database.
public struct ListSourceStore: Sendable {
    private let database: PepperDatabase

    /// The catalogue of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// Every source, in the order they were added.
    public func all() throws -> [ListSource] {
        try database.writer.read { db in try ListSource.order(Column("id")).fetchAll(db) }
    }

    /// The enabled sources, in the order they were added.
    public func enabled() throws -> [ListSource] {
        try database.writer.read { db in
            try ListSource.filter(Column("enabled") == true).order(Column("id")).fetchAll(db)
        }
    }

    /// The source called `name`, if any.
    public func source(named name: String) throws -> ListSource? {
        try database.writer.read { db in try ListSource.filter(Column("name") == name).fetchOne(db) }
    }

    /// Stores a new source.
    @discardableResult
    public func insert(_ source: ListSource) throws -> ListSource {
        try database.writer.write { db in
            var source = source
            try source.insert(db)
            return source
        }
    }

    /// Saves changes to an existing source.
    public func update(_ source: ListSource) throws {
        try database.writer.write { db in try source.update(db) }
    }

    /// Removes the source called `name`; returns whether it existed.
    @discardableResult
    public func remove(named name: String) throws -> Bool {
        try database.writer.write { db in
            try ListSource.filter(Column("name") == name).deleteAll(db) > 0
        }
    }
}
