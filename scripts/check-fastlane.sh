#!/usr/bin/env bash
# Pepper's fastlane files checked without fastlane (which needs a Mac and Xcode to run a lane):
#
#   1. `ruby -c` on Apple/fastlane/{Fastfile,Appfile,Snapfile,Gemfile}: they parse;
#   2. every scheme the lanes or the Snapfile name is declared under `schemes:` in
#      Apple/project.yml, and every test target they run (scan's and snapshot's only_testing)
#      is in that scheme's test action;
#   3. every target the Fastfile signs (APP_TARGET, EXTENSION_TARGETS) is a target of project.yml;
#   4. the lanes Apple/README.md lists (its "Lanes" table) are the Fastfile's lanes, no more, no less;
#   5. the Gemfile pins fastlane to one version.
#
# The Fastfile is read, never run: Ruby's own parser (Ripper) finds the lanes and the values of
# `scheme:` and `only_testing:`, resolving the constants the Fastfile assigns.
#
#   scripts/check-fastlane.sh          exits non-zero, saying what is wrong, on any failure
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v ruby >/dev/null; then
    echo "check-fastlane: ruby is missing (apt-get install ruby)" >&2
    exit 1
fi

status=0
for file in Apple/fastlane/Fastfile Apple/fastlane/Appfile Apple/fastlane/Snapfile Apple/fastlane/Gemfile; do
    if output=$(ruby -c "$file" 2>&1); then
        echo "  ruby -c $file: $output"
    else
        echo "  ruby -c $file failed: $output"
        status=1
    fi
done

ruby - <<'RUBY' || status=1
require "ripper"
require "yaml"

failures = []
sexp = ->(path) { Ripper.sexp(File.read(path)) or abort("check-fastlane: #{path} does not parse") }

def each_node(node, &block)
  return unless node.is_a?(Array)
  yield node
  node.each { |child| each_node(child, &block) }
end

# The value of a literal expression: a string, an array of strings (also %w[]), a constant the
# file assigned, `.freeze` of one of these; nil for anything else.
def value_of(node, constants)
  return nil unless node.is_a?(Array)
  case node[0]
  when :string_literal
    parts = node[1][1..]
    parts.size == 1 && parts[0][0] == :@tstring_content ? parts[0][1] : nil
  when :@tstring_content then node[1]
  when :array
    return [] if node[1].nil?
    values = node[1].map { |element| value_of(element, constants) }
    values.all? ? values.flatten : nil
  when :var_ref, :const_ref
    node[1][0] == :@const ? constants[node[1][1]] : nil
  when :call
    node[3].is_a?(Array) && node[3][1] == "freeze" ? value_of(node[1], constants) : nil
  end
end

# Calls named `name` (`name(args)` or `name args`), with their first argument's node.
def calls(tree, names)
  found = []
  each_node(tree) do |node|
    ident, args = case node[0]
                  when :command then [node[1], node[2]]
                  when :method_add_arg then node[1][0] == :fcall ? [node[1][1], node[2][1]] : nil
                  end
    next unless ident && ident[0] == :@ident && names.include?(ident[1]) && args.is_a?(Array) && args[0] == :args_add_block
    found << [ident[1], args[1][0]]
  end
  found
end

# `label: value` pairs anywhere in the tree, for the given labels.
def labelled(tree, labels)
  found = []
  each_node(tree) do |node|
    next unless node[0] == :assoc_new && node[1].is_a?(Array) && node[1][0] == :@label
    label = node[1][1].delete_suffix(":")
    found << [label, node[2]] if labels.include?(label)
  end
  found
end

fastfile = sexp.("Apple/fastlane/Fastfile")
snapfile = sexp.("Apple/fastlane/Snapfile")
project = YAML.safe_load(File.read("Apple/project.yml"))
schemes = project.fetch("schemes", {})
targets = project.fetch("targets", {})

constants = {}
fastfile[1].each do |statement|
  next unless statement[0] == :assign && statement[1][0] == :var_field && statement[1][1][0] == :@const
  constants[statement[1][1][1]] = value_of(statement[2], constants)
end

lanes = calls(fastfile, %w[lane private_lane]).map do |_, argument|
  argument[0] == :symbol_literal ? argument[1][1][1] : failures.push("a lane whose name is not a symbol: #{argument.inspect}")
end

used_schemes = []
run_tests = []
labelled(fastfile, %w[scheme only_testing]).each do |label, node|
  value = value_of(node, constants)
  failures << "the Fastfile's #{label}: is not a literal or a constant it assigns" if value.nil?
  (label == "scheme" ? used_schemes : run_tests).concat(Array(value))
end
calls(snapfile, %w[scheme only_testing]).each do |name, argument|
  value = value_of(argument, {})
  failures << "the Snapfile's #{name}(...) is not a literal" if value.nil?
  (name == "scheme" ? used_schemes : run_tests).concat(Array(value))
end
failures << "no lane names a scheme" if used_schemes.empty?

used_schemes.uniq.each do |scheme|
  if schemes.key?(scheme)
    tested = schemes[scheme].fetch("test", {}).fetch("targets", []).map { |t| t.is_a?(Hash) ? t["name"] : t }
    run_tests.uniq.each do |target|
      failures << "scheme #{scheme} does not test #{target} (its test targets: #{tested.join(', ')})" unless tested.include?(target)
    end
  else
    failures << "the lanes name scheme #{scheme}, which Apple/project.yml's schemes: does not declare (it has: #{schemes.keys.join(', ')})"
  end
end
run_tests.uniq.each { |target| failures << "the lanes test #{target}, which is not a target of project.yml" unless targets.key?(target) }

signed = Array(constants["APP_TARGET"]) + Array(constants["EXTENSION_TARGETS"])
failures << "the Fastfile names no APP_TARGET / EXTENSION_TARGETS to sign" if signed.empty?
signed.each { |target| failures << "the Fastfile signs #{target}, which is not a target of project.yml" unless targets.key?(target) }
extensions = targets.select { |_, spec| spec["type"] == "app-extension" || (spec["templates"] || []).include?("ContentBlocker") }.keys
missing = extensions - Array(constants["EXTENSION_TARGETS"])
failures << "project.yml's extensions #{missing.join(', ')} are not signed by the Fastfile" unless missing.empty?

readme = File.read("Apple/README.md")
section = readme[/^## Lanes\n(.*?)(?=^## )/m, 1] or failures.push("Apple/README.md has no \"## Lanes\" section")
listed = section.to_s.scan(/^\| `([a-z_]+)` \|/).flatten
failures << "Apple/README.md's Lanes table lists no lane" if listed.empty?
(listed - lanes).each { |lane| failures << "Apple/README.md lists lane #{lane}, which the Fastfile does not have" }
(lanes - listed).each { |lane| failures << "the Fastfile's lane #{lane} is not in Apple/README.md's Lanes table" }

pins = File.read("Apple/fastlane/Gemfile").scan(/^\s*gem\s+["']fastlane["']\s*,\s*["']([^"']+)["']/).flatten
failures << "the Gemfile does not pin fastlane to one version (gem \"fastlane\", \"X.Y.Z\")" unless pins.size == 1 && pins[0] =~ /\A\d+\.\d+\.\d+\z/

puts "  lanes: #{lanes.join(', ')}; README lists #{listed.size}"
puts "  schemes named: #{used_schemes.uniq.join(', ')}; tests run: #{run_tests.uniq.join(', ')}; targets signed: #{signed.size}; fastlane #{pins.join}"
if failures.empty?
  puts "==> fastlane files: consistent with Apple/project.yml and Apple/README.md"
else
  failures.each { |failure| puts "  FAIL: #{failure}" }
  exit 1
end
RUBY
exit $status
