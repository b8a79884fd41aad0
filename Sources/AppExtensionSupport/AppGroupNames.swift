import ContentBlockerSlots
import PepperFiles

// The app group's container and the content-blocker slots live in the two small modules a
// Safari content blocker links alone (no database, no compiler); they are named here too so the
// app and the other extensions, which import AppExtensionSupport, keep them in scope.

/// The app group's container (`PepperFiles.AppGroupContainer`).
public typealias AppGroupContainer = PepperFiles.AppGroupContainer
/// Why the app group's container cannot be found (`PepperFiles.AppGroupError`).
public typealias AppGroupError = PepperFiles.AppGroupError
/// One of the app's Safari content blockers (`ContentBlockerSlots.ContentBlockerSlot`).
public typealias ContentBlockerSlot = ContentBlockerSlots.ContentBlockerSlot
/// Why a bundle is not a content-blocker slot (`ContentBlockerSlots.ContentBlockerSlotError`).
public typealias ContentBlockerSlotError = ContentBlockerSlots.ContentBlockerSlotError
/// What a content blocker hands Safari (`ContentBlockerSlots.ContentBlockerAttachment`).
public typealias ContentBlockerAttachment = ContentBlockerSlots.ContentBlockerAttachment
