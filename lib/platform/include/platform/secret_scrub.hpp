#pragma once
// Scrubbing secret values out of what a provider sends back. A provider may echo what it was
// sent (an error saying "invalid key abc123", an echo endpoint, a debug dump), and not always
// byte for byte: a JSON body may escape any character of it, a URL percent-encodes it, an
// HTML error page uses character references, a Basic header or a token blob base64-encodes
// it. Whatever reaches the app or an agent is read by something that decodes those forms
// (the platform itself parses JSON replies before passing them on), so the scrub matches what
// the text *means*, not only its raw bytes.
#include <string>
#include <vector>

namespace platform {

// `text` with every occurrence of each value (of 4 bytes or more) replaced by "[REDACTED]"
// (overlapping occurrences become one), in any of these forms:
//  - as is;
//  - inside JSON strings, any character written as itself or escaped (\uXXXX in either hex
//    case, surrogate pairs for characters beyond U+FFFF, \" \\ \/ \b \f \n \r \t), mixed
//    freely; also a JSON text that was itself put into a JSON string (escaped twice);
//  - percent-encoded, either hex case, + for a space;
//  - HTML character references (&#99; &#x63; &amp; &lt; &gt; &quot; &apos;);
//  - any two of the three decodings above applied one after the other (a percent-encoded
//    value inside a JSON string, ...);
//  - base64 and base64url, padded or not, on its own or inside a longer encoding at any of the
//    three byte alignments (then the characters that depend only on the value; at most a few
//    bits of the value stay in the neighbouring characters), also through the decodings above.
// The text need not be JSON; a replacement may leave an escape sequence cut, so callers that
// need JSON check it again (http_action_result carries such a body as a string).
std::string scrub_secrets(std::string text, const std::vector<std::string>& secret_values);

}  // namespace platform
