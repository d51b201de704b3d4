/// Several observers, each told every event in turn (the printer first).
public final class RunObservers: RunObserver {
    let observers: [RunObserver]

    public init(_ observers: [RunObserver]) { self.observers = observers }

    public func handle(_ event: RunEvent) {
        for observer in observers { observer.handle(event) }
    }
}
