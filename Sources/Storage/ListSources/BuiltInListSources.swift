/// The lists Pepper knows out of the box, by their public URLs. EasyList and EasyPrivacy are
/// enabled; Tracker Radar and Disconnect overlap with them and are there to be enabled.
public enum BuiltInListSources {
    /// EasyList: ads.
    public static let easyList = ListSource(
        name: "easylist", location: "https://easylist.to/easylist/easylist.txt", format: "abp", enabled: true, builtIn: true)
    /// EasyPrivacy: tracking.
    public static let easyPrivacy = ListSource(
        name: "easyprivacy", location: "https://easylist.to/easylist/easyprivacy.txt", format: "abp", enabled: true,
        builtIn: true)
    /// DuckDuckGo's Tracker Radar blocking dataset for apps.
    public static let trackerRadar = ListSource(
        name: "duckduckgo-tds", location: "https://staticcdn.duckduckgo.com/trackerblocking/v5/current/ios-tds.json", format: "tds",
        enabled: false, builtIn: true)
    /// Disconnect's tracking-protection services list.
    public static let disconnect = ListSource(
        name: "disconnect",
        location: "https://raw.githubusercontent.com/disconnectme/disconnect-tracking-protection/master/services.json",
        format: "disconnect", enabled: false, builtIn: true)

    /// All built-in entries, in catalogue order.
    public static let all = [easyList, easyPrivacy, trackerRadar, disconnect]
}
