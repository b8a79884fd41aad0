#if os(iOS)
import AppSupport
import AVFoundation
import SwiftUI
import UIKit

/// The camera looking for QR codes, for the pairing invitation the console shows: every code it
/// sees goes to `found`, as often as the camera reports it (`SyncInvitationReader` makes one
/// reading of a code that stays in view). Nothing is recorded.
struct InvitationScanner: UIViewControllerRepresentable {
    /// Called on the main actor with each QR code's text.
    let found: @MainActor (String) -> Void

    func makeUIViewController(context: Context) -> ScannerController {
        ScannerController(found: found)
    }

    func updateUIViewController(_ controller: ScannerController, context: Context) {}

    static func dismantleUIViewController(_ controller: ScannerController, coordinator: ()) {
        controller.stop()
    }

    /// What iOS allows, before the scanner opens (`AVCaptureDevice.authorizationStatus`).
    static var access: SyncScreenPlan.CameraAccess {
        guard AVCaptureDevice.default(for: .video) != nil else { return .unavailable }
        switch AVCaptureDevice.authorizationStatus(for: .video) {
        case .authorized: return .allowed
        case .notDetermined: return .notAsked
        case .denied: return .denied
        case .restricted: return .restricted
        @unknown default: return .denied
        }
    }

    /// Asks the person (the first time; `NSCameraUsageDescription` is the question's text).
    static func requestAccess() async -> SyncScreenPlan.CameraAccess {
        if access == .notAsked { _ = await AVCaptureDevice.requestAccess(for: .video) }
        return access
    }
}

/// A capture session with a QR-code metadata output and its preview.
final class ScannerController: UIViewController {
    private let found: @MainActor (String) -> Void
    private let capture = CaptureSession()
    private var preview: AVCaptureVideoPreviewLayer?

    init(found: @escaping @MainActor (String) -> Void) {
        self.found = found
        super.init(nibName: nil, bundle: nil)
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) { fatalError("not used from a storyboard") }

    override func viewDidLoad() {
        super.viewDidLoad()
        view.backgroundColor = .black
        let session = capture.session
        guard let camera = AVCaptureDevice.default(for: .video), let input = try? AVCaptureDeviceInput(device: camera),
            session.canAddInput(input)
        else { return }
        session.addInput(input)
        let output = AVCaptureMetadataOutput()
        guard session.canAddOutput(output) else { return }
        session.addOutput(output)
        // After adding the output: its available types depend on the session's inputs.
        output.setMetadataObjectsDelegate(self, queue: .main)
        output.metadataObjectTypes = [.qr]
        let preview = AVCaptureVideoPreviewLayer(session: session)
        preview.videoGravity = .resizeAspectFill
        view.layer.addSublayer(preview)
        self.preview = preview
        capture.start()
    }

    override func viewDidLayoutSubviews() {
        super.viewDidLayoutSubviews()
        preview?.frame = view.bounds
    }

    /// Stops the camera (the sheet closed).
    func stop() {
        capture.stop()
    }
}

extension ScannerController: AVCaptureMetadataOutputObjectsDelegate {
    nonisolated func metadataOutput(
        _ output: AVCaptureMetadataOutput, didOutput metadataObjects: [AVMetadataObject], from connection: AVCaptureConnection
    ) {
        let texts = metadataObjects.compactMap { ($0 as? AVMetadataMachineReadableCodeObject)?.stringValue }
        // The delegate's queue is the main queue (setMetadataObjectsDelegate above).
        MainActor.assumeIsolated {
            for text in texts { found(text) }
        }
    }
}

/// The capture session, started and stopped off the main thread (`startRunning` blocks until
/// the camera runs), one call at a time.
private final class CaptureSession: @unchecked Sendable {
    let session = AVCaptureSession()
    private let queue = DispatchQueue(label: "org.pepper.invitation-scanner")

    func start() {
        queue.async { [self] in
            if !session.isRunning { session.startRunning() }
        }
    }

    func stop() {
        queue.async { [self] in
            if session.isRunning { session.stopRunning() }
        }
    }
}
#endif
