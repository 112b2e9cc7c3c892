#include "UserGuide.h"

#include <QAction>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QTextBrowser>
#include <QToolBar>
#include <QUrl>
#include <QVBoxLayout>

namespace hips {

namespace {

// The guide's pages, their pictures no wider than the page: the screenshots are taken at 1600
// pixels, which a 900-pixel dialog showed as a strip to scroll sideways.
class GuideBrowser : public QTextBrowser {
public:
    static constexpr int kPictureWidth = 820;

    QVariant loadResource(int type, const QUrl& name) override {
        const QVariant resource = QTextBrowser::loadResource(type, name);
        if (type != QTextDocument::ImageResource) return resource;
        const QImage picture = QImage::fromData(resource.toByteArray());
        if (picture.width() <= kPictureWidth) return resource;
        return picture.scaledToWidth(kPictureWidth, Qt::SmoothTransformation);
    }
};

}  // namespace

UserGuide::UserGuide(QWidget* parent) : QWidget(parent) {
    auto* browser = new GuideBrowser;
    browser->setObjectName(QStringLiteral("guide"));
    browser->setOpenExternalLinks(true);
    const QUrl home(QStringLiteral("qrc:/guide/README.md"));
    if (QFile::exists(QStringLiteral(":/guide/README.md"))) browser->setSource(home, QTextDocument::MarkdownResource);
    else browser->setPlainText(tr("The guide is not in this build; see README.md beside the sources."));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QToolBar;
    QAction* back = bar->addAction(tr("Back"), browser, &QTextBrowser::backward);
    back->setEnabled(false);
    connect(browser, &QTextBrowser::backwardAvailable, back, &QAction::setEnabled);
    bar->addAction(tr("Contents"), browser, [browser, home] { browser->setSource(home, QTextDocument::MarkdownResource); });
    layout->addWidget(bar);
    // The pages are English; a translated studio says so above them (the English one needs no note:
    // the note shows only where this string has a translation).
    const char* englishOnly = QT_TR_NOOP("The guide is in English only; the rest of HiPS Studio is translated.");
    if (const QString note = tr(englishOnly); note != QLatin1String(englishOnly)) {
        auto* label = new QLabel(note);
        label->setObjectName(QStringLiteral("english_only"));
        label->setContentsMargins(8, 4, 8, 4);
        layout->addWidget(label);
    }
    layout->addWidget(browser);
}

}  // namespace hips
