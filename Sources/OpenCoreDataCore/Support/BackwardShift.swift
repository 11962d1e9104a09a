/// Backward-shift deletion from a linear-probing table: after an entry leaves, each later
/// entry of the same probe run moves into the hole unless its probe starts cyclically
/// after the hole (it would no longer be found). Shared by ``ObjectKeyTable`` and
/// `ManagedObjectSet`'s position index.
///
/// - Returns: Whether the entry at `next`, whose probe starts at `home`, may move to `hole`.
@inline(__always)
func backwardShiftCanFill(hole: Int, from next: Int, home: Int) -> Bool {
    hole <= next ? (home <= hole || home > next) : (home <= hole && home > next)
}
