import PepperFiles

/// Pepper's home folder (`PepperFiles.PepperHome`), named here too so that code importing
/// Storage keeps it in scope: the type lives in PepperFiles, below Storage, so that a Safari
/// content blocker finds the app group's files without linking the database.
public typealias PepperHome = PepperFiles.PepperHome
