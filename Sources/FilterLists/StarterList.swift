/// A small filter list written for Pepper, embedded so that `pepper compile` works offline on a
/// fresh machine. It blocks the most widespread ad and analytics hosts and hides common ad
/// containers; subscribe to EasyList and EasyPrivacy (`pepper lists`) for real coverage.
public enum StarterList {
    /// The list's name in reports and in `manifest.json`.
    public static let name = "pepper-starter"

    /// The list's pseudo-URL in `manifest.json`.
    public static let url = "embedded:pepper-starter"

    /// The list, in Adblock Plus syntax.
    public static let text = """
        [Adblock Plus 2.0]
        ! Title: Pepper starter list
        ! Expires: 30 days
        ! Homepage: embedded in pepper; see README.md
        ! A short list of the most common ad and tracking hosts, for offline first use.
        !
        ! Advertising networks
        ||doubleclick.net^
        ||googlesyndication.com^
        ||googleadservices.com^
        ||adservice.google.com^
        ||amazon-adsystem.com^
        ||adnxs.com^
        ||criteo.com^
        ||criteo.net^
        ||taboola.com^
        ||outbrain.com^
        ||rubiconproject.com^
        ||pubmatic.com^
        ||openx.net^
        ||casalemedia.com^
        ||adsrvr.org^
        ||moatads.com^
        ||smartadserver.com^
        ||media.net^$third-party
        ! Analytics and tracking
        ||google-analytics.com^
        ||googletagmanager.com^$third-party
        ||scorecardresearch.com^
        ||quantserve.com^
        ||hotjar.com^$third-party
        ||mixpanel.com^$third-party
        ||segment.io^$third-party
        ||chartbeat.com^$third-party
        ||newrelic.com^$third-party
        ||connect.facebook.net^$third-party
        ||bat.bing.com^
        ||analytics.tiktok.com^
        ||ads-twitter.com^
        ! Generic patterns
        /adframe.$subdocument
        /pagead/js/*
        -ad-banner.$image
        /ads/banner/*$image,script
        ! Element hiding
        ##.ad-banner
        ##.adsbygoogle
        ##.ad-container
        ##[id^="google_ads_iframe"]
        ##[id^="div-gpt-ad"]
        ##.sponsored-content
        """
}
