import Crypto
import Foundation

/// Fingerprinting protection, the same in both browsers: a user script injected at document
/// start in every frame of a site's web view (before any of the page's scripts), so that what a
/// page can measure of the device either says nothing about it or differs from site to site.
///
/// | surface | what the script does |
/// |---|---|
/// | canvas | `HTMLCanvasElement.toDataURL` and `toBlob` read a copy of the canvas, and `CanvasRenderingContext2D.getImageData` its pixels, with the lowest bit of one colour channel of some opaque pixels flipped — which ones depends on the site's seed, the pixel's position and its colour |
/// | WebGL | `getParameter` answers `Apple Inc.` and `Apple GPU` for the unmasked vendor and renderer (`WEBGL_debug_renderer_info`), whatever the GPU — the strings WebKit itself gives when it masks them, so the shield adds nothing that sets Pepper apart; `readPixels` gets the canvas's noise |
/// | audio | `AudioBuffer.getChannelData` and `copyFromChannel` (what an `OfflineAudioContext` rendering is read through) scale each sample by 1 ± 10⁻⁶ (−120 dB, inaudible), and `AnalyserNode`'s frequency readouts get the same noise |
/// | navigator | `hardwareConcurrency` is 4 (WebKit itself says 4 or 8), `deviceMemory` (where the engine has it) 8, `languages` is only the first language |
///
/// The noise is deterministic for a site: the same drawing reads the same on every visit (a
/// site that checks its canvas twice sees no change), and differently on every other site, so
/// readouts cannot link a person across sites. Each site's seed is an HMAC-SHA256 of the site
/// under a secret made once per browser (``makeSecret()``) and kept in its state, so no site can
/// work out another's. The script is detectable (a page can tell that the functions were
/// replaced); it hides the device, not itself. Not covered: workers (user scripts do not run in
/// them, so `OffscreenCanvas` and `navigator` there are the engine's), fonts, screen size,
/// `navigator.plugins` (the engine's fixed list), timing, and a frame a page creates and reads
/// before the engine injects the script in it.
public struct FingerprintShield: Sendable {
    /// The per-browser secret the sites' seeds are derived from.
    public let secret: Data

    /// A shield over `secret` (at least 16 bytes: ``makeSecret()``).
    public init(secret: Data) {
        self.secret = secret
    }

    /// A new random secret (32 bytes), made once and stored with the browser's settings.
    public static func makeSecret() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The secret as stored (lower-case hex), and back; `nil` for text that is not 16 or more bytes of hex.
    public static func secret(stored text: String) -> Data? {
        guard text.count >= 32, text.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return Data(bytes)
    }

    /// `secret` as stored: lower-case hex.
    public static func stored(_ secret: Data) -> String {
        secret.map { String(format: "%02x", $0) }.joined()
    }

    /// The 32-bit seed of `partition`'s noise: the first four bytes of HMAC-SHA256(secret, site).
    public func seed(for partition: SitePartition) -> UInt32 {
        let code = HMAC<SHA256>.authenticationCode(
            for: Data(("fingerprint-noise\n" + (partition.site ?? "")).utf8), using: SymmetricKey(data: secret))
        return code.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The user script for `partition`'s web view (every frame, document start).
    public func script(for partition: SitePartition) -> String {
        Self.source(seed: seed(for: partition))
    }

    /// The script with its seed.
    public static func source(seed: UInt32) -> String {
        """
        (function () {
          'use strict';
          var seed = \(seed) >>> 0;
          // A hash of the seed and two numbers: the same site and input give the same noise.
          function mix(a, b) {
            var t = (seed ^ Math.imul(a | 0, 0x9E3779B1) ^ Math.imul(b | 0, 0x85EBCA77)) >>> 0;
            t = Math.imul(t ^ (t >>> 16), 0x21F0AAAD);
            t = Math.imul(t ^ (t >>> 15), 0x735A2D97);
            return (t ^ (t >>> 15)) >>> 0;
          }
          function replace(object, name, make) {
            if (!object || typeof object[name] !== 'function') return;
            var original = object[name];
            try { object[name] = make(original); } catch (e) {}
          }
          // RGBA pixels, `width` wide, whose first pixel is at (x0, y0) of the canvas: flips the
          // low bit of one channel of about half the opaque pixels.
          function noisePixels(data, x0, y0, width) {
            if (!data || !width) return;
            for (var i = 0; i + 3 < data.length; i += 4) {
              if (data[i + 3] !== 255) continue;
              var p = i >> 2;
              var colour = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
              var r = mix((x0 + p % width) * 65537 + (y0 + Math.floor(p / width)), colour);
              if (r & 1) data[i + (r >>> 1) % 3] ^= 1;
            }
          }
          var getImageData = window.CanvasRenderingContext2D && CanvasRenderingContext2D.prototype.getImageData;
          // A copy of `canvas` with the noise, or null when it cannot be read (the original call
          // then answers, with its own error for a tainted canvas).
          function noisedCopy(canvas) {
            try {
              if (!canvas.width || !canvas.height || !getImageData) return null;
              var copy = document.createElement('canvas');
              copy.width = canvas.width;
              copy.height = canvas.height;
              var context = copy.getContext('2d');
              context.drawImage(canvas, 0, 0);
              var image = getImageData.call(context, 0, 0, copy.width, copy.height);
              noisePixels(image.data, 0, 0, image.width);
              context.putImageData(image, 0, 0);
              return copy;
            } catch (e) { return null; }
          }
          if (window.HTMLCanvasElement) {
            replace(HTMLCanvasElement.prototype, 'toDataURL', function (original) {
              return function () { return original.apply(noisedCopy(this) || this, arguments); };
            });
            replace(HTMLCanvasElement.prototype, 'toBlob', function (original) {
              return function () { return original.apply(noisedCopy(this) || this, arguments); };
            });
          }
          if (getImageData) {
            CanvasRenderingContext2D.prototype.getImageData = function (sx, sy) {
              var image = getImageData.apply(this, arguments);
              noisePixels(image.data, sx | 0, sy | 0, image.width);
              return image;
            };
          }
          [window.WebGLRenderingContext, window.WebGL2RenderingContext].forEach(function (type) {
            if (!type) return;
            replace(type.prototype, 'getParameter', function (original) {
              return function (name) {
                if (name === 0x9245) return '\(webGLVendor)';
                if (name === 0x9246) return '\(webGLRenderer)';
                return original.apply(this, arguments);
              };
            });
            replace(type.prototype, 'readPixels', function (original) {
              return function (x, y, width, height, format, kind, pixels) {
                var result = original.apply(this, arguments);
                if (pixels instanceof Uint8Array && format === 0x1908) noisePixels(pixels, x | 0, y | 0, width | 0);
                return result;
              };
            });
          });
          function noiseSamples(data, channel) {
            for (var i = 0; i < data.length; i++) {
              if (data[i] !== 0) data[i] *= 1 + ((mix(i, channel + 0x5EED) & 0xFFFF) / 0xFFFF - 0.5) * 2e-6;
            }
          }
          if (window.AudioBuffer) {
            // Each channel of a buffer is noised once, in place: reading it again gives the same samples.
            var noised = new WeakMap();
            var getChannelData = AudioBuffer.prototype.getChannelData;
            AudioBuffer.prototype.getChannelData = function (channel) {
              var data = getChannelData.apply(this, arguments);
              var done = noised.get(this);
              if (!done) { done = {}; noised.set(this, done); }
              if (!done[channel]) { done[channel] = true; noiseSamples(data, channel | 0); }
              return data;
            };
            replace(AudioBuffer.prototype, 'copyFromChannel', function (original) {
              return function (destination, channel) {
                this.getChannelData(channel);
                return original.apply(this, arguments);
              };
            });
          }
          if (window.AnalyserNode) {
            replace(AnalyserNode.prototype, 'getFloatFrequencyData', function (original) {
              return function (array) { var result = original.apply(this, arguments); noiseSamples(array, 7); return result; };
            });
            replace(AnalyserNode.prototype, 'getFloatTimeDomainData', function (original) {
              return function (array) { var result = original.apply(this, arguments); noiseSamples(array, 8); return result; };
            });
          }
          function fixed(object, name, value) {
            if (!object || !(name in object)) return;
            try {
              Object.defineProperty(object, name, { get: function () { return value; }, configurable: true, enumerable: true });
            } catch (e) {}
          }
          if (window.Navigator) {
            var language = navigator.language;
            fixed(Navigator.prototype, 'hardwareConcurrency', \(normalizedHardwareConcurrency));
            fixed(Navigator.prototype, 'deviceMemory', \(normalizedDeviceMemory));
            fixed(Navigator.prototype, 'languages', Object.freeze(language ? [language] : []));
          }
        })();
        """
    }

    /// What `navigator.hardwareConcurrency` says on every site.
    public static let normalizedHardwareConcurrency = 4
    /// What `navigator.deviceMemory` says on every site, where the engine has it.
    public static let normalizedDeviceMemory = 8
    /// The unmasked WebGL vendor every site reads (WebKit's own masked value).
    public static let webGLVendor = "Apple Inc."
    /// The unmasked WebGL renderer every site reads (WebKit's own masked value).
    public static let webGLRenderer = "Apple GPU"
}
