import OpenCoreData

/// An executor that runs an actor's jobs where its ``ModelContext`` may be used.
public protocol ModelExecutor: AnyObject, Sendable {
    /// The context the actor's code uses.
    var modelContext: ModelContext { get }
}

/// A ``ModelExecutor`` that is also a serial executor, so an actor can run on it.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// The executor `@ModelActor` gives an actor: jobs run one at a time on the queue of the
/// context's underlying Core Data context.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    public let modelContext: ModelContext

    /// An executor over `modelContext`.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        modelContext.objectContext.perform {
            job.runSynchronously(on: executor)
        }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// An actor that owns a ``ModelContext``: `@ModelActor` makes an actor conform.
public protocol ModelActor: Actor {
    /// The container of the actor's context.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor the actor runs on.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's executor: its model executor's.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        guard let serial = modelExecutor as? any SerialModelExecutor else {
            preconditionFailure("\(Self.self)'s model executor is not a SerialModelExecutor")
        }
        return serial.asUnownedSerialExecutor()
    }

    /// The actor's context.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The model with `id` in the actor's context, if it is a `T`.
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as as: T.Type) -> T? {
        let model: T? = modelContext.registeredModel(for: id)
        return model ?? (modelContext.model(for: id) as? T)
    }
}
